"""Source transformations for the mutation benchmark (``tools/mutants.py``).

Each operator takes a plug-in module's source text and returns it with one
change to one method of one class, located with :mod:`ast` and spliced into
the text by line numbers (the rest of the file keeps its lines, so a message
naming file:line of an untouched handler still points at the same code).
Operators that add code add only code written here (small bodies in this
project's words); operators on third-party plug-ins (Heat's) delete, move or
unwrap what is there, or add an override, so no third-party code is copied
into this repository: the mutation is the transformation, applied at run time
to a copy made in a temporary directory.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass

Transform = Callable[[str], str]


class MutationError(Exception):
    """A transformation that does not apply to the source (the catalogue is out of date)."""


@dataclass(frozen=True)
class Op:
    """One transformation: what it does (for the report) and the function doing it."""

    describe: str
    apply: Transform

    def __call__(self, source: str) -> str:
        return self.apply(source)


# -- locating ---------------------------------------------------------------------------


def _class(tree: ast.Module, name: str) -> ast.ClassDef:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    raise MutationError(f"no class {name}")


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    return None


def _required_method(cls: ast.ClassDef, name: str) -> ast.FunctionDef:
    found = _method(cls, name)
    if found is None:
        raise MutationError(f"class {cls.name} defines no {name}")
    return found


def _start(node: ast.stmt) -> int:
    """First line (1-based) of a statement, decorators included."""
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _dotted(func: ast.expr) -> str:
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    elif isinstance(func, ast.Call):
        parts.append(_dotted(func.func) + "()")
    return ".".join(reversed(parts))


def _calls(node: ast.AST, suffix: str) -> bool:
    """Whether *node* contains a call whose dotted name ends with *suffix* (``volumes.delete``)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            name = _dotted(sub.func)
            if name == suffix or name.endswith("." + suffix):
                return True
    return False


def _simple_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every non-compound statement of *body*, depth first, in source order."""
    for stmt in body:
        blocks = [
            getattr(stmt, field)
            for field in ("body", "orelse", "finalbody")
            if isinstance(getattr(stmt, field, None), list)
        ]
        blocks += [h.body for h in getattr(stmt, "handlers", [])]
        if blocks and not isinstance(stmt, ast.FunctionDef | ast.ClassDef):
            for block in blocks:
                yield from _simple_statements(block)
        else:
            yield stmt


def _compound(body: list[ast.stmt], kind: type) -> Iterator[ast.stmt]:
    for stmt in body:
        if isinstance(stmt, kind):
            yield stmt
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and not isinstance(stmt, ast.FunctionDef):
                yield from _compound(inner, kind)


def _splice(source: str, first: int, last: int, text: str) -> str:
    """Replace lines *first*..*last* (1-based, inclusive) by *text* (lines, newline-ended)."""
    lines = source.splitlines(keepends=True)
    return "".join(lines[: first - 1]) + text + "".join(lines[last:])


def _indent_of(source: str, line: int) -> str:
    text = source.splitlines()[line - 1]
    return text[: len(text) - len(text.lstrip())]


def _block(code: str, indent: str) -> str:
    return textwrap.indent(textwrap.dedent(code).strip("\n") + "\n", indent)


def _locate(source: str, cls_name: str, method: str) -> tuple[ast.ClassDef, ast.FunctionDef]:
    cls = _class(ast.parse(source), cls_name)
    return cls, _required_method(cls, method)


# -- operators --------------------------------------------------------------------------


def override(cls_name: str, method: str, code: str, describe: str) -> Op:
    """Replace *method* of *cls_name* by *code* (a whole ``def``), or add it when inherited."""

    def apply(source: str) -> str:
        cls = _class(ast.parse(source), cls_name)
        indent = _indent_of(source, cls.body[0].lineno)
        found = _method(cls, method)
        if found is not None:
            return _splice(
                source, _start(found), found.end_lineno or found.lineno, _block(code, indent)
            )
        end = cls.end_lineno or cls.lineno
        return _splice(source, end + 1, end, "\n" + _block(code, indent))

    return Op(describe, apply)


def drop_call(cls_name: str, method: str, callee: str, describe: str) -> Op:
    """In *method*, replace each statement calling *callee* by ``pass`` (``return None`` for a return)."""

    def apply(source: str) -> str:
        _, fn = _locate(source, cls_name, method)
        hits = [s for s in _simple_statements(fn.body) if _calls(s, callee)]
        if not hits:
            raise MutationError(f"{cls_name}.{method} makes no call to {callee}")
        for stmt in reversed(hits):
            indent = _indent_of(source, stmt.lineno)
            stand_in = "return None" if isinstance(stmt, ast.Return) else "pass"
            source = _splice(
                source, stmt.lineno, stmt.end_lineno or stmt.lineno, indent + stand_in + "\n"
            )
        return source

    return Op(describe, apply)


def drop_statement(cls_name: str, method: str, text: str, describe: str) -> Op:
    """In *method*, replace the first simple statement whose source contains *text* by ``pass``."""

    def apply(source: str) -> str:
        _, fn = _locate(source, cls_name, method)
        for stmt in _simple_statements(fn.body):
            if text in (ast.get_source_segment(source, stmt) or ""):
                indent = _indent_of(source, stmt.lineno)
                return _splice(
                    source, stmt.lineno, stmt.end_lineno or stmt.lineno, indent + "pass\n"
                )
        raise MutationError(f"{cls_name}.{method} has no statement containing {text!r}")

    return Op(describe, apply)


def unwrap(cls_name: str, method: str, kind: str, describe: str, index: int = 0) -> Op:
    """In *method*, replace the *index*-th ``try`` (or ``with``) by its body: its handlers go."""
    node_type = {"try": ast.Try, "with": ast.With}[kind]

    def apply(source: str) -> str:
        _, fn = _locate(source, cls_name, method)
        found = list(_compound(fn.body, node_type))
        if len(found) <= index:
            raise MutationError(f"{cls_name}.{method} has no {kind} number {index}")
        stmt = found[index]
        body = stmt.body  # type: ignore[attr-defined]
        first, last = body[0].lineno, body[-1].end_lineno or body[-1].lineno
        inner = "".join(source.splitlines(keepends=True)[first - 1 : last])
        text = _block(inner, _indent_of(source, stmt.lineno))
        return _splice(source, stmt.lineno, stmt.end_lineno or stmt.lineno, text)

    return Op(describe, apply)


def substitute(cls_name: str, method: str, old: str, new: str, describe: str) -> Op:
    """In *method*'s text, replace *old* by *new* (both this project's words, a few tokens)."""

    def apply(source: str) -> str:
        _, fn = _locate(source, cls_name, method)
        first, last = _start(fn), fn.end_lineno or fn.lineno
        lines = source.splitlines(keepends=True)
        text = "".join(lines[first - 1 : last])
        if old not in text:
            raise MutationError(f"{cls_name}.{method} does not contain {old!r}")
        return _splice(source, first, last, text.replace(old, new, 1))

    return Op(describe, apply)


def defer_call(cls_name: str, method: str, callee: str, describe: str) -> Op:
    """Move the first statement of *method* calling *callee* to the end (before a final return)."""

    def apply(source: str) -> str:
        _, fn = _locate(source, cls_name, method)
        hits = [s for s in fn.body if _calls(s, callee)]
        if not hits:
            raise MutationError(f"{cls_name}.{method} has no top-level call to {callee}")
        stmt = hits[0]
        lines = source.splitlines(keepends=True)
        moved = "".join(lines[stmt.lineno - 1 : stmt.end_lineno])
        tail = fn.body[-1]
        if isinstance(tail, ast.Return):
            at = tail.lineno  # insert before the return
        else:
            at = (tail.end_lineno or tail.lineno) + 1
        if stmt is tail or at <= (stmt.end_lineno or stmt.lineno) + 1:
            raise MutationError(f"{cls_name}.{method}: nothing runs after the call to {callee}")
        source = _splice(source, at, at - 1, moved)
        return _splice(source, stmt.lineno, stmt.end_lineno or stmt.lineno, "")

    return Op(describe, apply)


def prepend(cls_name: str, method: str, code: str, describe: str) -> Op:
    """Insert *code* at the start of *method*'s body (after its docstring)."""

    def apply(source: str) -> str:
        _, fn = _locate(source, cls_name, method)
        first = fn.body[0]
        is_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
        if is_doc and len(fn.body) > 1:
            at = (first.end_lineno or first.lineno) + 1
        else:
            at = first.lineno
        return _splice(source, at, at - 1, _block(code, _indent_of(source, first.lineno)))

    return Op(describe, apply)


def rename_and_wrap(cls_name: str, method: str, wrapper: str, describe: str) -> Op:
    """Rename *method* to ``_mutant_original_<method>`` (when the class defines it) and add *wrapper*.

    The wrapper calls ``self._mutant_original(...)``: an alias to the renamed
    method, or to the inherited one when the class does not define *method*.
    """
    original = f"_mutant_original_{method}"

    def apply(source: str) -> str:
        cls = _class(ast.parse(source), cls_name)
        fn = _method(cls, method)
        indent = _indent_of(source, cls.body[0].lineno)
        if fn is not None:
            line = source.splitlines(keepends=True)[fn.lineno - 1]
            source = _splice(
                source, fn.lineno, fn.lineno, line.replace(f"def {method}(", f"def {original}(", 1)
            )
            alias = f"_mutant_original = {original}\n"
        else:
            alias = f"def _mutant_original(self, *args, **kwargs):\n    return super().{method}(*args, **kwargs)\n"
        cls = _class(ast.parse(source), cls_name)
        end = cls.end_lineno or cls.lineno
        return _splice(
            source, end + 1, end, "\n" + _block(alias, indent) + "\n" + _block(wrapper, indent)
        )

    return Op(describe, apply)


def chain(describe: str, *ops: Op) -> Op:
    """Several transformations making one bug (say, a suspend that does nothing and says done)."""

    def apply(source: str) -> str:
        for op in ops:
            source = op(source)
        return source

    return Op(describe, apply)
