"""A static model of one plug-in source file, read with :mod:`ast` and never executed.

:class:`PluginModule` parses a file once and answers what the rules ask: the
import aliases, the resource classes (classes deriving, directly or through
classes of the same module, from a class named ``...Resource``), their
methods and class attributes (looked up through their in-module ancestors),
and the module's top-level functions. Schemas are modelled in
:mod:`sdk.lint.schema_model`.
"""

from __future__ import annotations

import ast
import tokenize
from dataclasses import dataclass, field
from functools import cached_property
from io import StringIO
from pathlib import Path
from typing import Any

from sdk.lint.registry import Hit


def dotted_name(node: ast.AST) -> str | None:
    """Return ``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def last_name(node: ast.AST) -> str | None:
    """Return the last component of a Name/Attribute chain (``Schema.STRING`` → STRING)."""
    name = dotted_name(node)
    return name.rsplit(".", 1)[-1] if name else None


@dataclass
class ClassInfo:
    """A class defined at the top level of a plug-in module."""

    module: PluginModule
    node: ast.ClassDef
    parents: list[ClassInfo] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The class name."""
        return self.node.name

    @property
    def line(self) -> int:
        """The line of the ``class`` statement."""
        return self.node.lineno

    def lineage(self) -> list[ClassInfo]:
        """Return this class and its in-module ancestors, nearest first."""
        out: list[ClassInfo] = []
        todo = [self]
        while todo:
            current = todo.pop(0)
            if current in out:
                continue
            out.append(current)
            todo.extend(current.parents)
        return out

    def own_methods(self) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
        """The methods defined in this class body."""
        return {
            stmt.name: stmt
            for stmt in self.node.body
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
        }

    def own_attributes(self) -> dict[str, tuple[ast.AST, ast.expr]]:
        """Class-level assignments: name → (target node, value node).

        Tuple unpacking (``PROPERTIES = (NAME, SIZE) = ('name', 'size')``) binds
        each name to its own element.
        """
        out: dict[str, tuple[ast.AST, ast.expr]] = {}
        for stmt in self.node.body:
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    _bind(target, stmt.value, out)
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                _bind(stmt.target, stmt.value, out)
        return out

    def method(self, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """Find method *name* in this class or an in-module ancestor."""
        for cls in self.lineage():
            found = cls.own_methods().get(name)
            if found is not None:
                return found
        return None

    def attribute(self, name: str) -> tuple[ast.AST, ast.expr] | None:
        """Find class attribute *name* in this class or an in-module ancestor."""
        for cls in self.lineage():
            found = cls.own_attributes().get(name)
            if found is not None:
                return found
        return None

    def defines(self, name: str) -> bool:
        """Whether the class (or an in-module ancestor) defines *name* as method or attribute."""
        return self.method(name) is not None or self.attribute(name) is not None

    def constant(self, name: str) -> Any:
        """The literal value of class constant *name*, or None when not a literal."""
        found = self.attribute(name)
        if found is None:
            return None
        return literal(found[1])


def _bind(target: ast.AST, value: ast.expr, out: dict[str, tuple[ast.AST, ast.expr]]) -> None:
    if isinstance(target, ast.Name):
        out[target.id] = (target, value)
    elif isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List):
        if len(target.elts) == len(value.elts):
            for sub_target, sub_value in zip(target.elts, value.elts, strict=True):
                _bind(sub_target, sub_value, out)


class _Unknown:
    def __repr__(self) -> str:
        return "<unknown>"


#: Returned by :func:`literal` when a value cannot be known statically.
UNKNOWN: Any = _Unknown()


def literal(node: ast.AST | None) -> Any:
    """Evaluate *node* as a Python literal, or return :data:`UNKNOWN`."""
    if node is None:
        return UNKNOWN
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return UNKNOWN


class PluginModule:
    """One Python source file under lint, parsed once."""

    def __init__(self, path: Path, display: str, text: str) -> None:
        self.path = path
        self.display = display
        self.text = text
        self.syntax_error: SyntaxError | None = None
        #: Results computed once per file and shared between rules (the dynamic import ...).
        self.cache: dict[str, Any] = {}
        try:
            self.tree: ast.Module = ast.parse(text, filename=display)
        except SyntaxError as exc:
            self.syntax_error = exc
            self.tree = ast.Module(body=[], type_ignores=[])

    @classmethod
    def read(cls, path: Path, display: str | None = None) -> PluginModule:
        """Read and parse *path*; OSError/UnicodeDecodeError propagate to the runner."""
        text = path.read_text(encoding="utf-8")
        return cls(path, display or str(path), text)

    def hit(self, node: ast.AST | int | None, **args: Any) -> Hit:
        """A :class:`Hit` at *node* (or a line number) in this file; columns are 1-based."""
        if isinstance(node, int):
            return Hit(self.display, node, 1, args)
        if node is None:
            return Hit(self.display, 1, 1, args)
        return Hit(
            self.display,
            getattr(node, "lineno", 1),
            getattr(node, "col_offset", 0) + 1,
            args,
        )

    @cached_property
    def aliases(self) -> dict[str, str]:
        """Local name → fully qualified imported name (``sleep`` → ``time.sleep``)."""
        out: dict[str, str] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        out[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        out[top] = top
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                for alias in node.names:
                    out[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        return out

    def qualified(self, node: ast.AST) -> str | None:
        """The fully qualified name a call target refers to, resolving import aliases."""
        name = dotted_name(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        base = self.aliases.get(head, head)
        return f"{base}.{rest}" if rest else base

    @cached_property
    def classes(self) -> dict[str, ClassInfo]:
        """Top-level classes by name, with their in-module parents linked."""
        infos = {
            stmt.name: ClassInfo(self, stmt)
            for stmt in self.tree.body
            if isinstance(stmt, ast.ClassDef)
        }
        for info in infos.values():
            for base in info.node.bases:
                name = dotted_name(base)
                if name in infos and infos[name] is not info:
                    info.parents.append(infos[name])
        return infos

    @cached_property
    def resource_classes(self) -> list[ClassInfo]:
        """Classes that derive from a ``Resource`` base, in source order."""
        found: list[ClassInfo] = []
        for info in self.classes.values():
            if self._is_resource(info, set()):
                found.append(info)
        return found

    def _is_resource(self, info: ClassInfo, seen: set[str]) -> bool:
        if info.name in seen:
            return False
        seen.add(info.name)
        for base in info.node.bases:
            name = dotted_name(base)
            if name is None:
                continue
            if name in self.classes:
                if self._is_resource(self.classes[name], seen):
                    return True
                continue
            if name.rsplit(".", 1)[-1].endswith("Resource"):
                return True
        return False

    def surely_not_resource(self, info: ClassInfo, seen: frozenset[str] = frozenset()) -> bool:
        """True when the source alone shows *info* is no resource: every base is ``object`` or
        another class of this module that is surely none (an imported base could be one)."""
        if info.name in seen:
            return True
        for base in info.node.bases:
            name = dotted_name(base)
            if name == "object":
                continue
            parent = self.classes.get(name) if name is not None else None
            if parent is None or not self.surely_not_resource(parent, seen | {info.name}):
                return False
        return True

    @cached_property
    def functions(self) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
        """Top-level functions by name."""
        return {
            stmt.name: stmt
            for stmt in self.tree.body
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
        }

    @cached_property
    def comments(self) -> dict[int, str]:
        """Line number → the comment on that line (read with :mod:`tokenize`)."""
        out: dict[int, str] = {}
        try:
            for token in tokenize.generate_tokens(StringIO(self.text).readline):
                if token.type == tokenize.COMMENT:
                    out[token.start[0]] = token.string
        except (tokenize.TokenError, SyntaxError, IndentationError):
            pass
        return out
