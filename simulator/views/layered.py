"""A layered (Sugiyama-style) layout of a directed graph, in plain Python.

The graph pictures need no Graphviz, so the classic layered recipe is written here:

1. **Layers by longest path**: every node sits one layer after its deepest requirement (a node without
   requirements in layer 0), so every edge points forwards.
2. **Dummy nodes**: an edge that spans more than one layer is cut into a chain of dummy nodes, one in each
   layer it passes, so it is drawn through its own slot of every column instead of across the boxes there.
3. **Crossing reduction**: alternating down and up sweeps order each layer by the barycentre (mean position)
   of its neighbours in the layer just fixed, then adjacent nodes are swapped while that lowers the crossings
   (the *transpose* step). The best ordering seen is kept.

Everything is ordered by the input order (template order), never by hash order, so a layout is the same
on every run. Cycles (never valid in a stack) do not hang the layering: a back edge is left out of the
layers and drawn as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

#: How many down-and-up sweep pairs are tried at most.
SWEEPS = 12
#: Sweeps stop after this many in a row that found no better ordering.
STALE_SWEEPS = 4
#: Above this many nodes in a layer the (quadratic) transpose step is skipped.
TRANSPOSE_LIMIT = 200


@dataclass(frozen=True)
class Dummy:
    """A bend point of the edge ``source → target`` in one layer it passes through."""

    source: str
    target: str
    layer: int


Item = str | Dummy


@dataclass
class Layering:
    """Layers of node names and dummies, in drawing order; ``chains`` are each long edge's dummies."""

    layers: list[list[Item]] = field(default_factory=list)
    chains: dict[tuple[str, str], list[Dummy]] = field(default_factory=dict)
    rank: dict[str, int] = field(default_factory=dict)
    #: the edges laid out (each pair once, cycles' back edges left out)
    edges: list[tuple[str, str]] = field(default_factory=list)

    def crossings(self) -> int:
        """Edge crossings between adjacent layers of this ordering."""
        succ = _successors(self)
        return sum(
            _bilayer_crossings(self.layers[i], self.layers[i + 1], succ)
            for i in range(len(self.layers) - 1)
        )


def longest_path_ranks(names: Sequence[str], edges: Sequence[tuple[str, str]]) -> dict[str, int]:
    """Each node's layer: 0 without requirements, else one more than its deepest requirement."""
    requires: dict[str, list[str]] = {n: [] for n in names}
    for req, dep in edges:
        if req in requires and dep in requires and req != dep and req not in requires[dep]:
            requires[dep].append(req)
    rank: dict[str, int] = {}
    for (
        name
    ) in names:  # iterative depth-first; a node already on the stack (a cycle) is not waited for
        todo = [name]
        while todo:
            current = todo[-1]
            missing = [r for r in requires[current] if r not in rank and r not in todo]
            if missing:
                todo.extend(missing)
                continue
            todo.pop()
            if current not in rank:
                rank[current] = 1 + max((rank.get(r, -1) for r in requires[current]), default=-1)
    return rank


def layout(
    names: Sequence[str], edges: Sequence[tuple[str, str]], sweeps: int = SWEEPS
) -> Layering:
    """Lay out the nodes *names* (in their given order) joined by *edges* ``(source, target)``."""
    rank = longest_path_ranks(names, edges)
    result = Layering(rank=rank)
    if not names:
        return result
    result.layers = [[] for _ in range(max(rank.values()) + 1)]
    for name in names:
        result.layers[rank[name]].append(name)
    seen: set[tuple[str, str]] = set()
    for source, target in edges:
        if (source, target) in seen or source not in rank or target not in rank:
            continue
        seen.add((source, target))
        if rank[target] <= rank[source]:
            continue  # a back edge of a cycle: drawn as it is
        result.edges.append((source, target))
        if rank[target] - rank[source] > 1:
            chain = [Dummy(source, target, r) for r in range(rank[source] + 1, rank[target])]
            result.chains[(source, target)] = chain
            for dummy in chain:
                result.layers[dummy.layer].append(dummy)
    _reduce_crossings(result, sweeps)
    return result


# --- crossing reduction -----------------------------------------------------------------------------


def _successors(layering: Layering) -> dict[Item, list[Item]]:
    """Each item's neighbours in the next layer (dummies included), in edge order."""
    succ: dict[Item, list[Item]] = {item: [] for layer in layering.layers for item in layer}
    for source, target in layering.edges:
        chain = layering.chains.get((source, target))
        if chain is not None:
            hops: list[Item] = [source, *chain, target]
            for a, b in zip(hops, hops[1:], strict=False):
                succ[a].append(b)
        elif layering.rank[target] - layering.rank[source] == 1:
            succ[source].append(target)
    return succ


def _bilayer_crossings(upper: list[Item], lower: list[Item], succ: dict[Item, list[Item]]) -> int:
    """Crossings between two adjacent layers: inversions of the edges sorted by their upper end."""
    where = {item: i for i, item in enumerate(lower)}
    ends = [end for item in upper for end in sorted(where[t] for t in succ.get(item, ()))]
    # A Fenwick tree counts, for each edge, the earlier edges whose lower end lies further right.
    tree = [0] * (len(lower) + 1)
    crossings = 0
    for seen, end in enumerate(ends):
        i, below = end + 1, 0
        while i > 0:
            below += tree[i]
            i -= i & -i
        crossings += seen - below
        i = end + 1
        while i <= len(lower):
            tree[i] += 1
            i += i & -i
    return crossings


def _reduce_crossings(layering: Layering, sweeps: int) -> None:
    succ = _successors(layering)
    pred: dict[Item, list[Item]] = {item: [] for item in succ}
    for item, targets in succ.items():
        for t in targets:
            pred[t].append(item)

    def total(layers: list[list[Item]]) -> int:
        return sum(
            _bilayer_crossings(layers[i], layers[i + 1], succ) for i in range(len(layers) - 1)
        )

    layers = layering.layers
    best = [list(layer) for layer in layers]
    best_count = total(layers)
    stale = 0
    for sweep in range(2 * sweeps):
        if best_count == 0 or stale >= STALE_SWEEPS:
            break
        down = sweep % 2 == 0
        order = range(1, len(layers)) if down else range(len(layers) - 2, -1, -1)
        for i in order:
            fixed = layers[i - 1] if down else layers[i + 1]
            neighbours = pred if down else succ
            layers[i] = _by_barycentre(layers[i], fixed, neighbours)
        _transpose(layers, succ, pred)
        count = total(layers)
        if count < best_count:
            best, best_count, stale = [list(layer) for layer in layers], count, 0
        else:
            stale += 1
    layering.layers = best


def _by_barycentre(
    layer: list[Item], fixed: list[Item], neighbours: dict[Item, list[Item]]
) -> list[Item]:
    """*layer* sorted by the mean position of each item's neighbours in *fixed*; an item with no
    neighbour there keeps its place (ties keep the current order)."""
    pos = {item: p for p, item in enumerate(fixed)}
    keyed = []
    for place, item in enumerate(layer):
        near = [pos[n] for n in neighbours[item] if n in pos]
        keyed.append((sum(near) / len(near) if near else float(place), place, item))
    return [item for _, _, item in sorted(keyed, key=lambda k: (k[0], k[1]))]


def _pair_crossings(
    u: Item, v: Item, neighbours: dict[Item, list[Item]], pos: dict[Item, int]
) -> int:
    """Crossings between the edges of *u* and of *v* (u placed left of v) towards one layer."""
    return sum(
        1 for a in neighbours[u] if a in pos for b in neighbours[v] if b in pos and pos[a] > pos[b]
    )


def _transpose(
    layers: list[list[Item]], succ: dict[Item, list[Item]], pred: dict[Item, list[Item]]
) -> None:
    """Swap neighbours in a layer while that lowers the crossings with the layers on both sides."""
    improved = True
    rounds = 0
    while improved and rounds < 8:
        improved, rounds = False, rounds + 1
        for i, layer in enumerate(layers):
            if len(layer) > TRANSPOSE_LIMIT:
                continue
            up = {item: p for p, item in enumerate(layers[i - 1])} if i > 0 else {}
            down = {item: p for p, item in enumerate(layers[i + 1])} if i + 1 < len(layers) else {}
            for j in range(len(layer) - 1):
                u, v = layer[j], layer[j + 1]
                now = _pair_crossings(u, v, pred, up) + _pair_crossings(u, v, succ, down)
                swapped = _pair_crossings(v, u, pred, up) + _pair_crossings(v, u, succ, down)
                if swapped < now:
                    layer[j], layer[j + 1] = v, u
                    improved = True
