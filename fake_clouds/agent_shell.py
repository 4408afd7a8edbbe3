"""The little shell the fake config agent understands: loops and functions of ``user_data``.

A booted server runs its ``user_data`` script; the fake agent only needs which
commands run, in which order, and how often. From the commands
:func:`fake_clouds.agent` splits out, :func:`run_order` builds:

* ``while``/``until`` loops: the body runs once (the agent's signal succeeds at
  the first try, and such retry loops ``break`` then);
* ``for VAR in WORDS`` loops: the body runs once per word; ``seq`` in a command
  substitution (`` `seq 1 20` ``, ``$(seq 2 5)``, ``$(seq 1 2 9)``) and a brace
  range (``{1..20}``) count as the words they expand to;
* functions (``name() { ...; }``, ``name(){ ... }``, ``function name { ... }``):
  the body runs where the function is called, never where it is defined;
* ``if`` blocks: the condition, then the ``then`` branch; ``elif`` and ``else``
  branches do not run (the server is healthy: what a script checks before it
  signals success holds, so its failure branch is not taken);
* everything else: every command as written, in order.

Background jobs (``&``) and ``wait`` are taken in order. A script whose blocks do
not balance (PowerShell's braces, a script cut short) is taken as written: every
command once, in order. A script that would run
more than :data:`MAX_COMMANDS` commands is cut there (a runaway loop must not
hang the world).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: The most commands one script is taken to run.
MAX_COMMANDS = 10000
_KEYWORDS = frozenset(("do", "then", "else", "elif", "done", "fi", "{", "}", "esac"))
_FUNC_INLINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\(\)\{?$")
_SEQ = re.compile(r"(?:`|\$\()\s*seq\s+(-?\d+)(?:\s+(-?\d+))?(?:\s+(-?\d+))?\s*(?:`|\))")
_BRACE = re.compile(r"^\{(-?\d+)\.\.(-?\d+)\}$")


@dataclass
class _Node:
    kind: str  # "cmd", "loop", "call", "block"
    tokens: list[str] = field(default_factory=list)
    times: int = 1
    body: list[_Node] = field(default_factory=list)


def _items(commands: list[list[str]]) -> list[tuple[str, list[str]]]:
    """Flatten *commands* into ``("kw", [word])``, ``("func", [name])`` and ``("cmd", tokens)``."""
    out: list[tuple[str, list[str]]] = []
    for tokens in commands:
        rest = list(tokens)
        while rest:
            head = rest[0]
            if head in _KEYWORDS:
                out.append(("kw", [head]))
                rest = rest[1:]
                continue
            inline = _FUNC_INLINE.match(head)
            if inline:
                out.append(("func", [inline.group(1)]))
                rest = rest[1:]
                continue
            if head == "function" and len(rest) > 1:
                out.append(("func", [rest[1].removesuffix("()")]))
                rest = rest[2:]
                continue
            if len(rest) > 1 and rest[1] in ("()", "(){") and head.isidentifier():
                out.append(("func", [head]))
                rest = rest[2:]
                continue
            # trailing block ends on one line: "done }" after a command
            tail = []
            while rest and rest[-1] in ("}", "done", "fi") and len(rest) > 1:
                tail.insert(0, rest.pop())
            out.append(("cmd", rest))
            out.extend(("kw", [t]) for t in tail)
            rest = []
    return out


def _seq_count(args: list[int]) -> int:
    if len(args) == 1:
        first, step, last = 1, 1, args[0]
    elif len(args) == 2:
        first, step, last = args[0], 1, args[1]
    else:
        first, step, last = args
    if step == 0:
        return 0
    return max(0, (last - first) // step + 1)


def _word_count(tokens: list[str]) -> int:
    """How many times a ``for`` line's body runs."""
    if "in" not in tokens:
        return 1
    words = tokens[tokens.index("in") + 1 :]
    text = " ".join(words)
    count = 0
    for match in _SEQ.finditer(text):
        count += _seq_count([int(g) for g in match.groups() if g is not None])
        text = text.replace(match.group(0), " ", 1)
    for word in text.split():
        brace = _BRACE.match(word)
        count += abs(int(brace.group(2)) - int(brace.group(1))) + 1 if brace else 1
    return count


class _Parser:
    def __init__(self, items: list[tuple[str, list[str]]]) -> None:
        self.items = items
        self.pos = 0
        self.functions: dict[str, list[_Node]] = {}
        #: a block reached the end of the script without its ``done``/``fi``/``}``
        self.unbalanced = False
        #: the keyword the last block ended at
        self.ended_by = ""

    def block(self, ends: frozenset[str]) -> list[_Node]:
        nodes: list[_Node] = []
        while self.pos < len(self.items):
            kind, words = self.items[self.pos]
            self.pos += 1
            if kind == "kw":
                if words[0] in ends:
                    self.ended_by = words[0]
                    return nodes
                continue  # do, then, else, { ...: markers inside the block
            if kind == "func":
                self.functions[words[0]] = self.block(frozenset(("}",)))
                continue
            head = words[0] if words else ""
            if head in ("while", "until", "for"):
                times = _word_count(words) if head == "for" else 1
                nodes.append(_Node("loop", words, times, self.block(frozenset(("done",)))))
            elif head == "if":
                taken = self.block(frozenset(("elif", "else", "fi")))
                if self.ended_by in ("elif", "else"):
                    self.block(frozenset(("fi",)))  # the branches not taken
                nodes.append(_Node("block", words, 1, taken))
            elif head in self.functions:
                nodes.append(_Node("call", words))
            else:
                nodes.append(_Node("cmd", words))
        if ends:
            self.unbalanced = True
        return nodes


def run_order(commands: list[list[str]]) -> list[list[str]]:
    """The commands of a script in the order (and as often as) a server runs them."""
    parser = _Parser(_items(commands))
    program = parser.block(frozenset())
    if parser.unbalanced:
        # not a POSIX shell script this little shell can follow (PowerShell's braces, a
        # script cut short): every command once, in order, as written
        return [list(c) for c in commands]
    out: list[list[str]] = []

    def run(nodes: list[_Node], depth: int) -> None:
        for node in nodes:
            if len(out) >= MAX_COMMANDS or depth > 50:
                return
            if node.kind == "cmd":
                out.append(node.tokens)
            elif node.kind == "call":
                run(parser.functions.get(node.tokens[0], []), depth + 1)
            elif node.kind == "block":
                out.append(node.tokens)  # the condition is a command too
                run(node.body, depth)
            else:
                for _ in range(min(node.times, MAX_COMMANDS)):
                    run(node.body, depth + 1)
                    if len(out) >= MAX_COMMANDS:
                        return

    run(program, 0)
    return out
