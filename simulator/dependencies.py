"""The dependency graph of a stack's resources.

A :class:`Graph` maps each resource name to the set of names it *requires*
(its dependencies). Resources are added in template order, and every ordering
the graph hands out is deterministic: when several resources are ready at the
same time they come out in template order, never in hash order.

The engine creates resources in :meth:`Graph.order` (requirements first) and
deletes them in :meth:`Graph.reverse_order`. A cycle makes both impossible;
:meth:`Graph.cycle` finds one and :meth:`Graph.check_acyclic` turns it into a
:class:`sdk.exception.StackValidationFailed` whose message names every
resource on the cycle.

All algorithms are linear (or ``n log n`` for the ordered topological sort)
in the number of resources plus edges, and iterative: a 50,000-resource chain
does not hit Python's recursion limit.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator

from sdk import exception


class Graph:
    """Resource name -> set of required resource names, in template order."""

    def __init__(self) -> None:
        self._requires: dict[str, set[str]] = {}
        self._index: dict[str, int] = {}
        self._required_by: dict[str, set[str]] | None = None

    # --- building -------------------------------------------------------

    def add(self, name: str, requires: Iterable[str] = ()) -> None:
        """Add *name* (if new) and record that it requires every name in *requires*.

        Required names that were never added themselves become nodes too, after
        all the nodes added so far.
        """
        self._node(name).update(requires)
        for req in list(self._requires[name]):
            self._node(req)
        self._required_by = None

    def _node(self, name: str) -> set[str]:
        reqs = self._requires.get(name)
        if reqs is None:
            reqs = set()
            self._requires[name] = reqs
            self._index[name] = len(self._index)
        return reqs

    # --- queries --------------------------------------------------------

    def __contains__(self, name: object) -> bool:
        """Return whether *name* is a node of the graph."""
        return name in self._requires

    def __iter__(self) -> Iterator[str]:
        """Iterate over the node names in the order they were added."""
        return iter(self._requires)

    def __len__(self) -> int:
        """Return the number of nodes."""
        return len(self._requires)

    def __repr__(self) -> str:
        """Show the graph as ``Graph({name: [requirements]})``."""
        body = {n: self.requires(n) for n in self._requires}
        return f"Graph({body!r})"

    def requires(self, name: str) -> list[str]:
        """Return the names *name* requires, in template order."""
        return sorted(self._requires[name], key=self._index.__getitem__)

    def required_by(self, name: str) -> list[str]:
        """Return the names that require *name*, in template order."""
        if self._required_by is None:
            rev: dict[str, set[str]] = {n: set() for n in self._requires}
            for node, reqs in self._requires.items():
                for req in reqs:
                    rev[req].add(node)
            self._required_by = rev
        if name not in self._required_by:
            raise KeyError(name)
        return sorted(self._required_by[name], key=self._index.__getitem__)

    def roots(self) -> list[str]:
        """Return the names that require nothing (the first wave), in template order."""
        return [n for n, reqs in self._requires.items() if not reqs]

    def leaves(self) -> list[str]:
        """Return the names nothing requires (the last wave of a create), in template order."""
        needed: set[str] = set()
        for reqs in self._requires.values():
            needed.update(reqs)
        return [n for n in self._requires if n not in needed]

    def order(self) -> list[str]:
        """Return every name, requirements before dependants; ties in template order.

        Raises :class:`sdk.exception.StackValidationFailed` on a cycle.
        """
        remaining = {n: len(reqs) for n, reqs in self._requires.items()}
        dependants: dict[str, list[str]] = {n: [] for n in self._requires}
        for node, reqs in self._requires.items():
            for req in reqs:
                dependants[req].append(node)
        heap = [(self._index[n], n) for n, count in remaining.items() if count == 0]
        heapq.heapify(heap)
        out: list[str] = []
        while heap:
            _, node = heapq.heappop(heap)
            out.append(node)
            for dep in dependants[node]:
                remaining[dep] -= 1
                if remaining[dep] == 0:
                    heapq.heappush(heap, (self._index[dep], dep))
        if len(out) != len(self._requires):
            self.check_acyclic()
        return out

    def reverse_order(self) -> list[str]:
        """Return every name, dependants before their requirements (delete order).

        Ties come out in reverse template order, so the result is exactly
        :meth:`order` reversed.
        """
        return list(reversed(self.order()))

    def cycle(self) -> list[str] | None:
        """Return the names on one dependency cycle (closing name repeated), or None.

        The result reads as a chain of requirements: ``['a', 'b', 'a']`` means
        ``a`` requires ``b`` which requires ``a``. The search is iterative and
        deterministic (template order).
        """
        white, grey, black = 0, 1, 2
        colour = dict.fromkeys(self._requires, white)
        for start in self._requires:
            if colour[start] != white:
                continue
            stack: list[tuple[str, Iterator[str]]] = [(start, iter(self.requires(start)))]
            colour[start] = grey
            while stack:
                node, children = stack[-1]
                advanced = False
                for child in children:
                    if colour[child] == grey:
                        names = [n for n, _ in stack]
                        return names[names.index(child) :] + [child]
                    if colour[child] == white:
                        colour[child] = grey
                        stack.append((child, iter(self.requires(child))))
                        advanced = True
                        break
                if not advanced:
                    colour[node] = black
                    stack.pop()
        return None

    def check_acyclic(self, *, source: str | None = None) -> None:
        """Raise StackValidationFailed naming the resources on a cycle, if there is one."""
        loop = self.cycle()
        if loop:
            raise exception.StackValidationFailed(
                f"Circular dependency found: {' -> '.join(loop)}",
                path=["resources", loop[0]],
                source=source,
            )

    def copy(self) -> Graph:
        """Return an independent copy."""
        new = Graph()
        for name in self._requires:
            new._node(name)
        for name, reqs in self._requires.items():
            new._requires[name] = set(reqs)
        return new

    def to_dict(self) -> dict[str, list[str]]:
        """Return ``{name: [requirements]}`` in template order (JSON friendly)."""
        return {n: self.requires(n) for n in self._requires}
