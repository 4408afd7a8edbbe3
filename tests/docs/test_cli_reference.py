"""The CLI reference is generated from the click tree: every command and option is on the page."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import click
import pytest
from docutils.core import publish_doctree
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.cli import main
from simulator.clidoc import (
    CliDocError,
    escape_rst,
    iter_commands,
    load_command,
    render_command,
    render_reference,
)

DOCS = Path(__file__).resolve().parents[2] / "docs"
build_main = pytest.importorskip("sphinx.cmd.build").build_main


def _tree(command: click.Command, path: str) -> list[tuple[str, click.Command]]:
    """Every visible command under *command*, found with click's own attributes."""
    found = [(path, command)]
    if isinstance(command, click.Group):
        for name, sub in sorted(command.commands.items()):
            if not sub.hidden:
                found += _tree(sub, f"{path} {name}")
    return found


def _sections(text: str) -> dict[str, str]:
    """Map each section title of the rendered reference to its body (titles unescaped)."""
    parts = re.split(r"^(.+)\n-+\n", text, flags=re.M)
    titles = [re.sub(r"\\(.)", r"\1", t) for t in parts[1::2]]
    return dict(zip(titles, parts[2::2], strict=True))


def test_the_reference_lists_every_command_argument_and_option_of_the_cli():
    sections = _sections(render_reference(main, "plugsim"))
    tree = _tree(main, "plugsim")

    assert list(sections) == [path for path, _ in tree]  # no more, no fewer, in order
    assert {"plugsim stack create", "plugsim lint", "plugsim new", "plugsim cloud"} <= {
        path for path, _ in tree
    }
    for path, command in tree:
        body = sections[path]
        assert f".. code-block:: text\n\n   {path} " in body, path  # the usage line
        for param in command.params:
            if isinstance(param, click.Option):
                for opt in (*param.opts, *param.secondary_opts):
                    assert (opt in body) != param.hidden, (path, opt)
            else:
                assert f"``{param.human_readable_name}" in body or param.name.upper() in body
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                assert (f"* `{path} {name}`_" in body) != sub.hidden, (path, name)


def test_the_page_is_generated_from_the_cli_not_written_by_hand():
    page = (DOCS / "cli.rst").read_text(encoding="utf-8")
    assert ".. click-reference:: simulator.cli:main\n   :prog: plugsim\n" in page
    assert "--template" not in page  # no option is documented by hand
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert '"simulator.clidoc"' in conf
    assert re.search(r"^   cli$", (DOCS / "index.rst").read_text(encoding="utf-8"), re.M)


def test_the_reference_is_the_same_on_every_run():
    assert render_reference(main, "plugsim") == render_reference(main, "plugsim")


@click.group()
def tool() -> None:
    """A tool_ with *stars* and `ticks`."""


@tool.command("make")
@click.argument("kind", type=click.Choice(["a", "b"]))
@click.argument("names", nargs=-1)
@click.option("--size", type=click.IntRange(1, 9), default=3, help="How big.")
@click.option("--colour", envvar="TOOL_COLOUR", required=True, help="Paint it.")
@click.option("--tag", multiple=True, default=("x", "y"), help="A tag.")
@click.option("--fast/--slow", default=True, help="Speed.")
@click.option("--quiet", is_flag=True, help="Say less.")
@click.option("--config", default=lambda: "c.yaml", show_default="./c.yaml")
@click.option("--when", default=lambda: "now")
@click.option("--secret", hidden=True)
def make(**kwargs: object) -> None:
    """Make NAMES of KIND.

    \b
    make a x
      (indented)

    1. Not a list.\f
    Internal notes.
    """


@tool.command("ghost", hidden=True)
def ghost() -> None:
    """Never shown."""


def test_a_command_renders_help_usage_arguments_and_options_exactly():
    contexts = list(iter_commands(tool, "tool"))
    assert [ctx.command_path for ctx in contexts] == ["tool", "tool make"]

    assert render_command(contexts[1]) == textwrap.dedent(
        """\
        tool make
        ---------

        Make NAMES of KIND\\.

        .. code-block:: text

           make a x
             (indented)

        1\\. Not a list\\.

        Usage:

        .. code-block:: text

           tool make [OPTIONS] {a|b} [NAMES]...

        Arguments:

        ``{a|b}``
           Required; one of ``a``, ``b``.

        ``[NAMES]...``
           Optional; any number.

        Options:

        ``--size INTEGER RANGE``
           How big\\. Default: ``3``; range: ``1<=x<=9``.

        ``--colour TEXT``
           Paint it\\. Required; environment variable ``TOOL_COLOUR``.

        ``--tag TEXT``
           A tag\\. Default: ``x y``; repeatable.

        ``--fast / --slow``
           Speed\\. Default: ``--fast``.

        ``--quiet``
           Say less\\.

        ``--config TEXT``
           Default: ``./c.yaml``.

        ``--when TEXT``
           No description.

        """
    )
    group = render_command(contexts[0])
    assert group.startswith("tool\n----\n\nA tool\\_ with \\*stars\\* and \\`ticks\\`\\.\n")
    assert "* `tool make`_ — Make NAMES of KIND\\.\n" in group
    assert "ghost" not in group


TOOL_MODULE = '''
import click


@click.group()
def tool():
    """A tool."""


@tool.command("make")
@click.option("--size", default=3, help="How big.")
def make(size):
    """Make things.

    1. Not a list.\\f
    Internal notes.
    """


@tool.command("ghost", hidden=True)
def ghost():
    """Never shown."""
'''


def test_the_directive_builds_a_page_and_links_the_subcommands(tmp_path, monkeypatch):
    src = tmp_path / "src"
    src.mkdir()
    (tmp_path / "clidoc_sample_tool.py").write_text(TOOL_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    (src / "conf.py").write_text('extensions = ["simulator.clidoc"]\n')
    (src / "index.rst").write_text(
        "Tool\n====\n\n.. click-reference:: clidoc_sample_tool:tool\n   :prog: tool\n"
    )
    out = tmp_path / "out"
    assert build_main(["-q", "-W", "-b", "html", str(src), str(out)]) == 0
    page = (out / "index.html").read_text(encoding="utf-8")
    assert 'id="tool-make"' in page
    assert 'href="#tool-make"' in page
    assert "tool make [OPTIONS]" in page and "Default: <code" in page
    assert "1. Not a list." in page
    assert "Internal notes" not in page and "Never shown" not in page


def test_a_bad_target_fails_the_build_with_a_message_naming_it(tmp_path, capsys):
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text('extensions = ["simulator.clidoc"]\n')
    (src / "index.rst").write_text("Tool\n====\n\n.. click-reference:: simulator.cli:mian\n")
    assert build_main(["-q", "-W", "-b", "html", str(src), str(tmp_path / "out")]) != 0
    assert (
        "click-reference: simulator.cli:mian: module 'simulator.cli' has no attribute 'mian'"
        in capsys.readouterr().err
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("simulator.cli", "'simulator.cli': expected module:attribute (e.g. simulator.cli:main)"),
        (":main", "':main': expected module:attribute (e.g. simulator.cli:main)"),
        ("no_such_mod_xyz:main", "no_such_mod_xyz:main: cannot import module 'no_such_mod_xyz'"),
        (
            "simulator.cli._shared:Options",
            "simulator.cli._shared:Options: type is not a click command",
        ),
        ("simulator.cli._shared:parse_parameters", "function is not a click command"),
    ],
)
def test_load_command_names_what_is_wrong(spec, message):
    with pytest.raises(CliDocError) as error:
        load_command(spec)
    assert message in str(error.value)


def test_load_command_returns_the_click_object():
    assert load_command("simulator.cli:main") is main


@settings(max_examples=200, deadline=None)
@given(
    st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp")))
    .map(lambda t: " ".join(t.split()))
    .filter(bool)
)
def test_escaped_text_renders_as_exactly_that_text(text):
    tree = publish_doctree(escape_rst(text), settings_overrides={"report_level": 5})
    assert [node.tagname for node in tree.children] == ["paragraph"]
    assert tree.children[0].astext() == text
