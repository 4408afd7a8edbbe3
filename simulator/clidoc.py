"""The CLI reference, generated from the click definitions (a tiny Sphinx extension).

:func:`render_reference` walks a click command tree (``simulator.cli:main`` for
plugsim) and renders reStructuredText: one section per command, its help text,
usage line, arguments, options (with their help, default, choices, environment
variable and whether they are required or repeatable) and, for groups, the
subcommands. Hidden commands and options are left out; commands come in
alphabetical order, so the output is the same on every run.

As a Sphinx extension (``extensions = [..., "simulator.clidoc"]``) it adds the
``click-reference`` directive::

    .. click-reference:: simulator.cli:main
       :prog: plugsim

The page then cannot drift from the code: it is rebuilt from the command
objects every time the docs are built.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Iterator
from typing import Any, ClassVar

import click
from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

from sdk import __version__, exception

__all__ = [
    "ClickReference",
    "CliDocError",
    "escape_rst",
    "iter_commands",
    "load_command",
    "render_command",
    "render_reference",
    "setup",
]

#: The underline of every command's section (all commands are siblings).
SECTION_UNDERLINE = "-"
_SPECIAL = re.compile(r"([^\w\s]|_)")


class CliDocError(exception.PlugsimError):
    """The command to document cannot be found (bad ``module:attribute``)."""


def escape_rst(text: str) -> str:
    """*text* as inline reStructuredText that renders exactly as written.

    Every character other than letters, digits and white space gets a
    backslash, so ``*args``, ``a_b_``, ``|x|`` or a leading ``1.`` stay plain
    text instead of becoming emphasis, references, substitutions or lists.
    """
    return _SPECIAL.sub(r"\\\1", text)


def load_command(spec: str) -> click.Command:
    """Import ``module:attribute`` and return that click command.

    Raises :class:`CliDocError` naming *spec* when the form is wrong, the module
    does not import, the attribute is missing or it is not a click command.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise CliDocError(f"{spec!r}: expected module:attribute (e.g. simulator.cli:main)")
    try:
        module = importlib.import_module(module_name)
    except ImportError as ex:
        raise CliDocError(f"{spec}: cannot import module {module_name!r}: {ex}") from None
    command = getattr(module, attr, None)
    if command is None:
        raise CliDocError(f"{spec}: module {module_name!r} has no attribute {attr!r}")
    if not isinstance(command, click.Command):
        raise CliDocError(f"{spec}: {type(command).__name__} is not a click command")
    return command


def iter_commands(root: click.Command, prog: str) -> Iterator[click.Context]:
    """Yield a context for *root* and every visible command below it, depth first.

    The commands of a group come in the order of ``list_commands`` (alphabetical
    for click groups); ``ctx.command_path`` is the full invocation
    (``plugsim stack create``).
    """
    yield from _walk(click.Context(root, info_name=prog))


def _walk(ctx: click.Context) -> Iterator[click.Context]:
    yield ctx
    group = ctx.command
    if not isinstance(group, click.Group):
        return
    for name in group.list_commands(ctx):
        sub = group.get_command(ctx, name)
        if sub is None or sub.hidden:
            continue
        yield from _walk(click.Context(sub, info_name=name, parent=ctx))


def render_reference(root: click.Command, prog: str = "plugsim") -> str:
    """reStructuredText for *root* and every command below it (one section each)."""
    return "\n".join(render_command(ctx) for ctx in iter_commands(root, prog))


def render_command(ctx: click.Context) -> str:
    """reStructuredText for the command of *ctx*: title, help, usage, arguments, options."""
    command = ctx.command
    title = escape_rst(ctx.command_path)
    lines = [title, SECTION_UNDERLINE * len(title), ""]
    if command.deprecated:
        note = command.deprecated if isinstance(command.deprecated, str) else ""
        lines += [f"*Deprecated.* {escape_rst(note)}".rstrip(), ""]
    lines += _help_blocks(command.help or command.short_help or "")
    usage = " ".join([ctx.command_path, *command.collect_usage_pieces(ctx)])
    lines += ["Usage:", "", ".. code-block:: text", "", f"   {usage}", ""]
    arguments = [p for p in command.params if isinstance(p, click.Argument)]
    options = [p for p in command.params if isinstance(p, click.Option) and not p.hidden]
    if arguments:
        lines += ["Arguments:", ""]
        for argument in arguments:
            lines += _argument(ctx, argument)
    if options:
        lines += ["Options:", ""]
        for option in options:
            lines += _option(ctx, option)
    if isinstance(command, click.Group):
        subcommands = []
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                subcommands.append((name, sub))
        if subcommands:
            lines += ["Commands:", ""]
            for name, sub in subcommands:
                target = f"{ctx.command_path} {name}"
                summary = escape_rst(sub.get_short_help_str(limit=200))
                lines.append(f"* `{target}`_ — {summary}".rstrip(" —"))
            lines.append("")
    return "\n".join(lines) + "\n"


def _help_blocks(text: str) -> list[str]:
    """Help text as paragraphs; click's ``\\b`` paragraphs keep their lines (literal block)."""
    text = inspect.cleandoc(text).split("\f")[0].strip()
    out: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        if not paragraph.strip():
            continue
        if paragraph.lstrip().startswith("\b"):
            body = paragraph.lstrip()[1:].strip("\n").splitlines()
            literal = [f"   {line}" if line.strip() else "" for line in body]
            out += [".. code-block:: text", "", *literal, ""]
        else:
            out += [escape_rst(" ".join(paragraph.split())), ""]
    return out


def _argument(ctx: click.Context, argument: click.Argument) -> list[str]:
    facts = ["required" if argument.required else "optional"]
    if argument.nargs == -1:
        facts.append("any number")
    elif argument.nargs > 1:
        facts.append(f"{argument.nargs} values")
    if isinstance(argument.type, click.Choice):
        facts.append("one of " + ", ".join(f"``{c}``" for c in argument.type.choices))
    envvar = _envvars(argument)
    if envvar:
        facts.append(envvar)
    return [f"``{argument.make_metavar(ctx)}``", f"   {_sentence(facts)}", ""]


def _option(ctx: click.Context, option: click.Option) -> list[str]:
    record = option.get_help_record(ctx)
    names = record[0] if record else ", ".join(option.opts)
    facts = []
    default = _default(ctx, option)
    if default is not None:
        facts.append(f"default: ``{default}``")
    describe = getattr(option.type, "_describe_range", None)
    if callable(describe):
        facts.append(f"range: ``{describe()}``")
    if option.required:
        facts.append("required")
    if option.multiple and "repeatable" not in (option.help or "").lower():
        facts.append("repeatable")
    if option.count:
        facts.append("counts repetitions")
    envvar = _envvars(option)
    if envvar:
        facts.append(envvar)
    body = escape_rst(" ".join((option.help or "").split()))
    text = " ".join(part for part in (body, _sentence(facts)) if part)
    return [f"``{names}``", f"   {text or 'No description.'}", ""]


def _sentence(facts: list[str]) -> str:
    """``["default: x", "required"]`` -> ``"Default: x; required."`` ("" for none)."""
    if not facts:
        return ""
    text = "; ".join(facts)
    return f"{text[0].upper()}{text[1:]}."


def _envvars(param: click.Parameter) -> str:
    envvar = param.envvar
    if not envvar:
        return ""
    names = [envvar] if isinstance(envvar, str) else list(envvar)
    return "environment variable " + ", ".join(f"``{n}``" for n in names)


def _default(ctx: click.Context, option: click.Option) -> str | None:
    """The default as shown on the page, or None when there is nothing worth saying."""
    if isinstance(option.show_default, str):
        return option.show_default
    value: Any = option.get_default(ctx, call=False)
    if value is None or _is_unset(value) or callable(value):
        return None
    if option.is_flag and not option.secondary_opts:
        return None  # a plain flag is off unless given
    if option.is_flag and option.secondary_opts:
        return option.opts[-1] if value else option.secondary_opts[-1]
    if option.multiple or (option.nargs != 1 and isinstance(value, list | tuple)):
        if not value:
            return None
        return " ".join(str(v) for v in value)
    return str(value)


def _is_unset(value: Any) -> bool:
    """click >= 8.3 marks "no default" with a sentinel object instead of None."""
    return type(value).__name__ == "Sentinel"


class ClickReference(SphinxDirective):
    """``.. click-reference:: module:attribute`` — the generated reference of a click CLI.

    Option ``:prog:`` sets the program name the usage lines start with
    (default: the command's own name).
    """

    required_arguments = 1
    has_content = False
    option_spec: ClassVar[dict[str, Any]] = {"prog": directives.unchanged_required}

    def run(self) -> list[Any]:
        """Render the command tree and parse it into the document (sections included)."""
        try:
            command = load_command(self.arguments[0])
        except CliDocError as ex:
            raise self.error(f"click-reference: {ex}") from None
        prog = self.options.get("prog") or command.name or self.arguments[0]
        text = render_reference(command, prog)
        source = f"<click-reference {self.arguments[0]}>"
        content = StringList(text.splitlines(), source=source)
        node = nodes.section()
        node.document = self.state.document
        nested_parse_with_titles(self.state, content, node, self.content_offset)
        return list(node.children)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the ``click-reference`` directive (Sphinx extension entry point)."""
    app.add_directive("click-reference", ClickReference)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
