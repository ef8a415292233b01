"""The function lineage drawn as an SVG graph: one column per stage of the run (start, epochs,
integration, merge, frozen), one box per function version in the column where it was born, an arrow
from each parent version. Box styles: active in the frozen library, present but inactive, retired
(dashed, with why in its tooltip); a merge result has a double border."""

from __future__ import annotations

from modularrsi.evolve.config import MODULES
from modularrsi.report.lineage import FunctionNode, Lineage
from modularrsi.report.svg import esc, svg, text

MODULE_ORDER = MODULES
BOX_W, BOX_H, GAP_X, GAP_Y, TOP, LEFT = 210, 34, 56, 12, 34, 12


def _module_class(module: str) -> str:
    return f"c{MODULE_ORDER.index(module) if module in MODULE_ORDER else 9}"


def _layout(lineage: Lineage) -> dict[str, tuple[float, float]]:
    columns: dict[int, list[FunctionNode]] = {}
    for node in lineage.functions:
        columns.setdefault(node.stage, []).append(node)
    where = {}
    for stage, nodes in columns.items():
        nodes.sort(key=lambda n: (MODULE_ORDER.index(n.module) if n.module in MODULE_ORDER else 9, n.key, n.born))
        for row, node in enumerate(nodes):
            where[node.id] = (LEFT + stage * (BOX_W + GAP_X), TOP + row * (BOX_H + GAP_Y))
    return where


def _edge(a: tuple[float, float], b: tuple[float, float]) -> str:
    if a[0] < b[0]:
        x1, y1, x2, y2 = a[0] + BOX_W, a[1] + BOX_H / 2, b[0] - 4, b[1] + BOX_H / 2
        mid = (x1 + x2) / 2
        return (f'<path d="M{x1:.0f},{y1:.0f} C{mid:.0f},{y1:.0f} {mid:.0f},{y2:.0f} {x2:.0f},{y2:.0f}" '
                'class="edge" marker-end="url(#arrow)"/>')
    x1, y1, x2, y2 = a[0], a[1] + BOX_H / 2, b[0] - 4, b[1] + BOX_H / 2  # same column: loop on the left
    return (f'<path d="M{x1:.0f},{y1:.0f} C{x1 - 40:.0f},{y1:.0f} {x2 - 40:.0f},{y2:.0f} {x2:.0f},{y2:.0f}" '
            'class="edge" marker-end="url(#arrow)"/>')


def lineage_svg(lineage: Lineage) -> str:
    where = _layout(lineage)
    rows = max((sum(n.stage == s for n in lineage.functions) for s in range(len(lineage.stages))), default=1)
    width = LEFT * 2 + len(lineage.stages) * (BOX_W + GAP_X) - GAP_X
    height = TOP + rows * (BOX_H + GAP_Y) + 10
    body = ['<defs><marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" '
            'orient="auto"><path d="M0,0 L8,4 L0,8 z" class="arrowhead"/></marker></defs>']
    body += [text(LEFT + i * (BOX_W + GAP_X) + BOX_W / 2, 16, stage, "middle", "hdr")
             for i, stage in enumerate(lineage.stages)]
    for node in lineage.functions:
        for parent in node.parents:
            if parent in where:
                body.append(_edge(where[parent], where[node.id]))
    for node in lineage.functions:
        x, y = where[node.id]
        tip = (f"{node.key} sha256 {node.sha[:12]} — born in {node.born}; {node.status}"
               f"{': ' + node.note if node.note else ''}; parents: {', '.join(node.parents) or 'none'}")
        cls = f"node {node.status}{' merged' if node.merged_from else ''}"
        body.append(f'<g class="{cls}"><title>{esc(tip)}</title>'
                    f'<rect x="{x:.0f}" y="{y:.0f}" width="{BOX_W}" height="{BOX_H}" rx="5" class="box"/>'
                    f'<rect x="{x:.0f}" y="{y:.0f}" width="6" height="{BOX_H}" class="{_module_class(node.module)}"/>')
        body.append(text(x + 12, y + 14, node.key[:32], size=11, cls="lbl strong"))
        status = f"{node.status}: {node.note}" if node.status in ("retired", "continued") else node.status
        status = "merge result · " + status if node.merged_from else status
        line = f"{node.sha[:7]} · {status}"
        body.append(text(x + 12, y + 28, line if len(line) <= 36 else line[:35] + "…", size=10))
        body.append("</g>")
    return svg(max(width, 300), height, "Lineage of functions across the run's generations", body, "plot lineage")
