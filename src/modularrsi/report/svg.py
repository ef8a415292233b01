"""Plots as inline SVG strings, drawn in Python: no script, no external file, no network.

Every figure has explicit ``width``/``height`` and a ``viewBox`` (it renders at a known, nonzero size),
a ``<title>`` for screen readers, and a ``<title>`` per mark (the value on hover). Colours are CSS
classes of the page (``c0`` … ``c9``) so the figures follow its stylesheet. Text is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

FONT = 12


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def svg(width: int, height: int, title: str, body: list[str], cls: str = "plot") -> str:
    return (f'<svg class="{cls}" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img"><title>{esc(title)}</title>{"".join(body)}</svg>')


def text(x: float, y: float, value: object, anchor: str = "start", cls: str = "lbl", size: int = FONT) -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" class="{cls}" font-size="{size}">'
            f"{esc(value)}</text>")


def rect(x: float, y: float, w: float, h: float, cls: str, tip: str = "") -> str:
    hint = f"<title>{esc(tip)}</title>" if tip else ""
    return f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 0):.1f}" height="{max(h, 0):.1f}" class="{cls}">{hint}</rect>'


def legend(items: Sequence[tuple[str, str]], x: float, y: float, step: int = 150) -> list[str]:
    out = []
    for i, (label, cls) in enumerate(items):
        out += [rect(x + i * step, y - 10, 12, 12, cls), text(x + i * step + 16, y, label)]
    return out


@dataclass
class Series:
    label: str
    points: list[tuple[float, float | None, bool]]  # x, y (None: not measured yet), marked


def line_chart(series: list[Series], title: str, x_label: str, y_label: str, y_max: float = 1.0,
               width: int = 640, height: int = 300) -> str:
    """Lines of y over integer x (e.g. Acc per epoch); a marked point is drawn filled, others hollow."""
    left, right, top, bottom = 56, 20, 20, 70
    xs = sorted({p[0] for s in series for p in s.points}) or [0]
    plot_w, plot_h = width - left - right, height - top - bottom
    x_of = (lambda x: left + plot_w / 2) if len(xs) == 1 else \
        (lambda x: left + (x - xs[0]) / (xs[-1] - xs[0]) * plot_w)

    def y_of(y: float) -> float:
        return top + plot_h - (y / y_max if y_max else 0) * plot_h

    body = [f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" class="axis"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" class="axis"/>']
    for tick in range(5):
        value = y_max * tick / 4
        body += [text(left - 6, y_of(value) + 4, f"{value:.2f}", "end"),
                 f'<line x1="{left}" y1="{y_of(value):.1f}" x2="{left + plot_w}" y2="{y_of(value):.1f}" class="grid"/>']
    body += [text(x_of(x), top + plot_h + 16, f"{x:g}", "middle") for x in xs]
    body += [text(left + plot_w / 2, top + plot_h + 32, x_label, "middle"),
             f'<text transform="translate(14 {top + plot_h / 2:.0f}) rotate(-90)" text-anchor="middle" '
             f'class="lbl" font-size="{FONT}">{esc(y_label)}</text>']
    for i, s in enumerate(series):
        shift = (i - (len(series) - 1) / 2) * 5  # lanes with equal values stay visible side by side
        pts = [(x_of(x) + shift, y_of(y), x, y, mark) for x, y, mark in s.points if y is not None]
        if len(pts) > 1:
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py, *_ in pts)
            body.append(f'<polyline points="{path}" class="line s{i % 10}"/>')
        for px, py, x, y, mark in pts:
            fill = "dot" if mark else "dot hollow"
            body.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="5" class="{fill} s{i % 10}">'
                        f"<title>{esc(s.label)} @ {x:g}: {y:.3f}{' (promoted)' if mark else ''}</title></circle>")
    body += legend([(s.label, f"c{i % 10}") for i, s in enumerate(series)], left, height - 12,
                   step=max(90, min(170, plot_w // max(len(series), 1))))
    return svg(width, height, title, body)


def stacked_bars(rows: list[tuple[str, dict[str, float]]], order: list[tuple[str, str]], title: str,
                 width: int = 760, bar: int = 18, classes: list[str] | None = None) -> str:
    """Horizontal 100 % bars, one per row; ``order`` gives (key, label) of the segments in order and
    ``classes`` their colour classes (default ``c0``, ``c1``, …)."""
    classes = classes or [f"c{i % 10}" for i in range(len(order))]
    left, right, top = 170, 20, 10
    height = top + len(rows) * (bar + 6) + 46
    plot_w = width - left - right
    body = []
    for r, (label, shares) in enumerate(rows):
        y = top + r * (bar + 6)
        body.append(text(left - 8, y + bar - 5, label, "end"))
        x = float(left)
        for i, (key, name) in enumerate(order):
            w = shares.get(key, 0.0) * plot_w
            if w > 0:
                body.append(rect(x, y, w, bar, classes[i], f"{label} — {name}: {shares.get(key, 0.0):.1%}"))
                if w > 34:
                    body.append(text(x + w / 2, y + bar - 5, f"{shares[key]:.0%}", "middle", "inbar", 10))
            x += w
    body += legend([(name, classes[i]) for i, (_, name) in enumerate(order)], 10, height - 10,
                   step=(width - 20) // max(len(order), 1))
    return svg(width, height, title, body)


def funnel(stages: list[tuple[str, int]], title: str, width: int = 640) -> str:
    """Centred bars shrinking with the count that reached each stage."""
    bar, top = 30, 10
    height = top + len(stages) * (bar + 8) + 4
    most = max((count for _, count in stages), default=0) or 1
    body = []
    for i, (name, count) in enumerate(stages):
        w = max(2.0, (width - 220) * count / most)
        y = top + i * (bar + 8)
        cls = "c2" if i == len(stages) - 1 else "c0"
        body += [rect(120 + (width - 220 - w) / 2, y, w, bar, cls, f"{name}: {count}"),
                 text(110, y + bar / 2 + 4, name, "end"), text(width - 90, y + bar / 2 + 4, str(count))]
    return svg(width, height, title, body)


def heatmap(cells: list[list[int]], rows: list[str], cols: list[str], title: str, row_title: str,
            col_title: str, classes: list[list[str]], cell: int = 56) -> str:
    """A grid of counts (e.g. tasks by baseline passes × candidate passes), one CSS class per cell."""
    left, top = 120, 46
    width, height = left + len(cols) * cell + 20, top + len(rows) * cell + 20
    body = [text(left + len(cols) * cell / 2, 14, col_title, "middle")]
    body += [text(left + c * cell + cell / 2, top - 8, label, "middle") for c, label in enumerate(cols)]
    body.append(f'<text transform="translate(14 {top + len(rows) * cell / 2:.0f}) rotate(-90)" '
                f'text-anchor="middle" class="lbl" font-size="{FONT}">{esc(row_title)}</text>')
    for r, label in enumerate(rows):
        body.append(text(left - 8, top + r * cell + cell / 2 + 4, label, "end"))
        for c, count in enumerate(cells[r]):
            body.append(rect(left + c * cell, top + r * cell, cell - 2, cell - 2, classes[r][c],
                             f"{row_title} {label}, {col_title} {cols[c]}: {count} task(s)"))
            body.append(text(left + c * cell + cell / 2 - 1, top + r * cell + cell / 2 + 4, count, "middle", "inbar"))
    return svg(width, height, title, body)


def bars(values: list[tuple[str, float]], title: str, x_max: float = 1.0, width: int = 640, bar: int = 14) -> str:
    """Horizontal bars with their value (e.g. Acc per task)."""
    left, top = 240, 6
    height = top + len(values) * (bar + 4) + 6
    plot_w = width - left - 60
    body = []
    for i, (label, value) in enumerate(values):
        y = top + i * (bar + 4)
        w = plot_w * (value / x_max if x_max else 0)
        body += [text(left - 8, y + bar - 3, label[:38], "end", size=11),
                 rect(left, y, w, bar, "c0", f"{label}: {value:.3f}"),
                 text(left + w + 6, y + bar - 3, f"{value:.2f}", size=11)]
    return svg(width, height, title, body)
