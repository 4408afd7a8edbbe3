"""Pictures of a run: its timeline in virtual time, its dependency graph and a report page.

* :mod:`simulator.views.timeline` reads spans, faults and the critical path from an event log;
* :mod:`simulator.views.gantt` draws a timeline in the terminal (rich) and as SVG;
* :mod:`simulator.views.graph` builds a stack's dependency graph and writes it as DOT, Mermaid or SVG;
* :mod:`simulator.views.page` puts everything into one self-contained HTML page.

These modules only read: events, fault records and template definitions. They never change a world.
"""
