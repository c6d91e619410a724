"""Plots as inline SVG, drawn here so the page needs no plotting library and no network."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

ROW = 22
LABEL_WIDTH = 190
BAR_WIDTH = 320
VALUE_WIDTH = 200
WIDTH = LABEL_WIDTH + BAR_WIDTH + VALUE_WIDTH

#: Colours by meaning; the stylesheet's legend uses the same names.
COLOURS = {
    "resolved": "#2e9e5b",
    "unresolved": "#d9822b",
    "error": "#c23b3b",
    "skipped": "#9a9a9a",
    "sandbox": "#6c8ebf",
    "agent": "#8e6cbf",
    "eval": "#bf6c9e",
    "cost": "#3b7dc2",
    "up": "#2e9e5b",
    "down": "#c23b3b",
    "bar": "#3b7dc2",
}


@dataclass
class Bar:
    label: str
    value: float
    text: str
    colour: str = COLOURS["bar"]


def _label(text: str, limit: int = 28) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _svg(height: int, body: list[str], title: str) -> str:
    return (
        f'<svg class="plot" role="img" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>{"".join(body)}</svg>'
    )


def bars(items: list[Bar], title: str, scale: float | None = None) -> str:
    """Horizontal bars, one per item, scaled to ``scale`` (default: the largest value)."""
    if not items:
        return '<p class="empty">nothing to plot</p>'
    top = scale if scale else max((b.value for b in items), default=0.0) or 1.0
    body = []
    for row, bar in enumerate(items):
        y = row * ROW
        width = max(0.0, min(1.0, bar.value / top)) * BAR_WIDTH
        body.append(
            f"<g><title>{escape(bar.label)}: {escape(bar.text)}</title>"
            f'<text x="{LABEL_WIDTH - 6}" y="{y + 15}" text-anchor="end">{escape(_label(bar.label))}</text>'
            f'<rect x="{LABEL_WIDTH}" y="{y + 3}" width="{BAR_WIDTH}" height="{ROW - 6}" class="track"/>'
            f'<rect x="{LABEL_WIDTH}" y="{y + 3}" width="{width:.1f}" height="{ROW - 6}" fill="{bar.colour}"/>'
            f'<text x="{LABEL_WIDTH + BAR_WIDTH + 6}" y="{y + 15}">{escape(bar.text)}</text></g>'
        )
    return _svg(len(items) * ROW + 4, body, title)


def stacked(rows: list[tuple[str, list[tuple[str, float, str]]]], title: str) -> str:
    """One bar per row split into coloured parts ``(name, value, colour)``, each row to its own total."""
    if not rows:
        return '<p class="empty">nothing to plot</p>'
    body = []
    for row, (label, parts) in enumerate(rows):
        y = row * ROW
        total = sum(value for _, value, _ in parts) or 1.0
        x = float(LABEL_WIDTH)
        body.append(
            f'<text x="{LABEL_WIDTH - 6}" y="{y + 15}" text-anchor="end">{escape(_label(label))}</text>'
        )
        for name, value, colour in parts:
            width = value / total * BAR_WIDTH
            if width <= 0:
                continue
            body.append(
                f'<rect x="{x:.1f}" y="{y + 3}" width="{width:.1f}" height="{ROW - 6}" fill="{colour}">'
                f"<title>{escape(label)}: {escape(name)} {value:g}</title></rect>"
            )
            x += width
        summary = " · ".join(f"{value:g}" for _, value, _ in parts)
        body.append(f'<text x="{LABEL_WIDTH + BAR_WIDTH + 6}" y="{y + 15}">{escape(summary)}</text>')
    return _svg(len(rows) * ROW + 4, body, title)


def deltas(items: list[tuple[str, float, str]], title: str) -> str:
    """Bars left (negative) or right (positive) of a middle line: per-group changes between two runs."""
    if not items:
        return '<p class="empty">nothing to plot</p>'
    top = max((abs(value) for _, value, _ in items), default=0.0) or 1.0
    middle = LABEL_WIDTH + BAR_WIDTH / 2
    body = [f'<line x1="{middle}" x2="{middle}" y1="0" y2="{len(items) * ROW}" class="axis"/>']
    for row, (label, value, text) in enumerate(items):
        y = row * ROW
        width = abs(value) / top * (BAR_WIDTH / 2)
        x = middle if value >= 0 else middle - width
        colour = COLOURS["up"] if value > 0 else COLOURS["down"]
        body.append(
            f"<g><title>{escape(label)}: {escape(text)}</title>"
            f'<text x="{LABEL_WIDTH - 6}" y="{y + 15}" text-anchor="end">{escape(_label(label))}</text>'
            f'<rect x="{x:.1f}" y="{y + 3}" width="{width:.1f}" height="{ROW - 6}" fill="{colour}"/>'
            f'<text x="{LABEL_WIDTH + BAR_WIDTH + 6}" y="{y + 15}">{escape(text)}</text></g>'
        )
    return _svg(len(items) * ROW + 4, body, title)
