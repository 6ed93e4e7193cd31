"""Line charts as accessible SVG, built on the server: no JavaScript, no CDN.

Pure Python, no Django: each builder returns SVG markup as a string, with every piece
of text passed through `html.escape`, so the caller may mark it safe. The charts work
under a strict CSP (no `style` attributes: presentation attributes and classes only)
and in dark mode (axes and text use `currentColor`; campaign.css lightens the line
colours). Colour is never the only cue: each series also has its own marker shape
and dash pattern, shown in the legend.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from math import ceil

# Okabe-Ito colours (safe for the common colour-vision deficiencies), darkened where
# needed for contrast on a light background; campaign.css swaps them in dark mode.
COLOURS = ("#0072b2", "#c24e00", "#007a5a", "#b0417f", "#7a6200", "#3b7fb6", "#6f4fa8", "#444")
MARKERS = ("circle", "square", "triangle", "diamond", "cross", "plus", "triangle-down", "bar")
DASHES = ("", "8 4", "2 4", "10 4 2 4", "4 4", "12 3 3 3 3 3", "1 3", "6 2 2 2")

WIDTH = 520
PLOT_TOP = 16
PLOT_HEIGHT = 220
LEFT = 60
RIGHT = 20
TICK_SPACE = 56  # below the plot: tick labels and the x-axis title
LEGEND_ROW = 26
# Two legend columns hold names up to LEGEND_SHORT characters; longer names get a row of
# their own, where up to LEGEND_LONG characters fit at FONT_SIZE (the whole name is in
# each marker's tooltip either way).
LEGEND_SHORT = 22
LEGEND_LONG = 46
FONT_SIZE = 16
# Series with equal values at a point (two members with the same XP) are drawn side by
# side, this far apart, so neither hides the other.
DODGE = 7


@dataclass(frozen=True, slots=True)
class Series:
    """One line: its name and one value per label (None where it has no value)."""

    name: str
    values: Sequence[int | None]


@dataclass(frozen=True, slots=True)
class Frame:
    """Where values land: x by label index, y by value (0 at the bottom)."""

    count: int
    top_value: int
    step: int = 1
    left: float = LEFT
    right: float = WIDTH - RIGHT
    top: float = PLOT_TOP
    bottom: float = PLOT_TOP + PLOT_HEIGHT

    def x(self, index: int) -> float:
        if self.count <= 1:
            return round((self.left + self.right) / 2, 2)
        return round(self.left + index * (self.right - self.left) / (self.count - 1), 2)

    def y(self, value: float) -> float:
        return round(self.bottom - value * (self.bottom - self.top) / self.top_value, 2)


def nice_top(largest: int, ticks: int = 5) -> tuple[int, int]:
    """A round top for the y axis at or above `largest`, and the step between ticks."""
    if largest <= 0:
        return ticks, 1
    raw = largest / ticks
    magnitude = 10 ** (len(str(ceil(raw))) - 1)
    for factor in (1, 2, 5, 10):
        step = factor * magnitude
        if step >= raw:
            break
    step = max(1, step)
    return step * ceil(largest / step), step


def frame_for(labels: Sequence[str], series: Sequence[Series]) -> Frame:
    values = [v for s in series for v in s.values if v is not None]
    top, step = nice_top(max(values, default=0))
    return Frame(count=len(labels), top_value=top, step=step)


def dodges(count: int, series: Sequence[Series]) -> dict[tuple[int, int], float]:
    """How far each point (series index, label index) is moved sideways: points of equal
    value at one label spread out around it, in the series' order; a lone point stays."""
    moved: dict[tuple[int, int], float] = {}
    for i in range(count):
        tied: dict[int, list[int]] = {}
        for index, line in enumerate(series):
            value = line.values[i] if i < len(line.values) else None
            if value is not None:
                tied.setdefault(value, []).append(index)
        for indexes in tied.values():
            for k, index in enumerate(indexes):
                moved[(index, i)] = (k - (len(indexes) - 1) / 2) * DODGE
    return moved


def _fmt(number: float) -> str:
    return f"{number:g}"


def marker_path(kind: str, x: float, y: float, size: float = 5) -> str:
    """The `d` of a marker centred on (x, y)."""
    s = size
    if kind == "circle":
        return (
            f"M{_fmt(x - s)} {_fmt(y)}a{_fmt(s)} {_fmt(s)} 0 1 0 {_fmt(2 * s)} 0"
            f"a{_fmt(s)} {_fmt(s)} 0 1 0 {_fmt(-2 * s)} 0z"
        )
    if kind == "square":
        return f"M{_fmt(x - s)} {_fmt(y - s)}h{_fmt(2 * s)}v{_fmt(2 * s)}h{_fmt(-2 * s)}z"
    if kind == "triangle":
        return f"M{_fmt(x)} {_fmt(y - s - 1)}L{_fmt(x + s + 1)} {_fmt(y + s)}H{_fmt(x - s - 1)}z"
    if kind == "triangle-down":
        return f"M{_fmt(x)} {_fmt(y + s + 1)}L{_fmt(x + s + 1)} {_fmt(y - s)}H{_fmt(x - s - 1)}z"
    if kind == "diamond":
        t = s + 1
        return (
            f"M{_fmt(x)} {_fmt(y - t)}L{_fmt(x + t)} {_fmt(y)}"
            f"L{_fmt(x)} {_fmt(y + t)}L{_fmt(x - t)} {_fmt(y)}z"
        )
    if kind == "cross":
        return (
            f"M{_fmt(x - s)} {_fmt(y - s)}L{_fmt(x + s)} {_fmt(y + s)}"
            f"M{_fmt(x + s)} {_fmt(y - s)}L{_fmt(x - s)} {_fmt(y + s)}"
        )
    if kind == "plus":
        return (
            f"M{_fmt(x - s - 1)} {_fmt(y)}H{_fmt(x + s + 1)}"
            f"M{_fmt(x)} {_fmt(y - s - 1)}V{_fmt(y + s + 1)}"
        )
    # "bar": a short vertical bar
    return f"M{_fmt(x - 2)} {_fmt(y - s - 1)}h4v{_fmt(2 * s + 2)}h-4z"


def _stroked_marker(kind: str) -> bool:
    return kind in ("cross", "plus")


def _segments(points: Sequence[tuple[float, float] | None]) -> list[list[tuple[float, float]]]:
    """Runs of consecutive points; a None (no value yet) breaks the line."""
    runs: list[list[tuple[float, float]]] = [[]]
    for point in points:
        if point is None:
            if runs[-1]:
                runs.append([])
        else:
            runs[-1].append(point)
    return [run for run in runs if run]


def _marker(
    index: int, x: float, y: float, colour: str, label: str, css: str = "chart__marker"
) -> str:
    kind = MARKERS[index % len(MARKERS)]
    d = marker_path(kind, x, y)
    if _stroked_marker(kind):
        paint = f'fill="none" stroke="{colour}" stroke-width="2.5"'
    else:
        paint = f'fill="{colour}" stroke="{colour}" stroke-width="1"'
    return f'<path class="{css}" d="{d}" {paint}><title>{escape(label)}</title></path>'


def line_chart(
    *,
    chart_id: str,
    title: str,
    description: str,
    labels: Sequence[str],
    series: Sequence[Series],
    x_title: str,
    y_title: str,
    unit: str,
    tick_labels: Sequence[str] | None = None,
) -> str:
    """A line chart: one line per series over `labels` (x), values on y from 0.

    `tick_labels` are the short labels printed under the x axis (default: `labels`);
    the full `labels` go into each point's tooltip. `chart_id` makes the ids of the
    title and description unique on the page (escaped as an attribute).

    Long because the SVG is written top to bottom: axes, ticks, lines, points and their
    text.
    """
    cid = escape(chart_id)
    frame = frame_for(labels, series)
    top, step = frame.top_value, frame.step
    ticks = tick_labels if tick_labels is not None else labels
    long_names = any(len(line.name) > LEGEND_SHORT for line in series)
    legend_columns, name_limit = (1, LEGEND_LONG) if long_names else (2, LEGEND_SHORT)
    legend_rows = ceil(len(series) / legend_columns)
    legend_top = frame.bottom + TICK_SPACE + 8
    height = legend_top + legend_rows * LEGEND_ROW + 8
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{cid}" role="img" '
        f'viewBox="0 0 {WIDTH} {_fmt(height)}" width="{WIDTH}" height="{_fmt(height)}" '
        f'aria-labelledby="{cid}-title {cid}-desc" font-size="{FONT_SIZE}" '
        f'font-family="system-ui, sans-serif" fill="currentColor">',
        f'<title id="{cid}-title">{escape(title)}</title>',
        f'<desc id="{cid}-desc">{escape(description)}</desc>',
    ]
    # Grid lines and y ticks.
    out.append('<g class="chart__grid" aria-hidden="true">')
    value = 0
    while value <= top:
        y = frame.y(value)
        out.append(
            f'<line x1="{_fmt(frame.left)}" x2="{_fmt(frame.right)}" y1="{_fmt(y)}" '
            f'y2="{_fmt(y)}" stroke="currentColor" stroke-opacity="0.2"/>'
        )
        out.append(
            f'<text x="{_fmt(frame.left - 8)}" y="{_fmt(y)}" text-anchor="end" '
            f'dominant-baseline="middle">{value}</text>'
        )
        value += step
    out.append("</g>")
    # Axes and their titles.
    out.append(
        '<g class="chart__axes" aria-hidden="true" stroke="currentColor" stroke-width="1.5">'
        f'<line x1="{_fmt(frame.left)}" x2="{_fmt(frame.left)}" y1="{_fmt(frame.top)}" '
        f'y2="{_fmt(frame.bottom)}"/>'
        f'<line x1="{_fmt(frame.left)}" x2="{_fmt(frame.right)}" y1="{_fmt(frame.bottom)}" '
        f'y2="{_fmt(frame.bottom)}"/></g>'
    )
    out.append('<g class="chart__x-ticks" aria-hidden="true" text-anchor="middle">')
    every = max(1, ceil(len(ticks) / 10))  # keep tick labels from running together
    for i, tick in enumerate(ticks):
        x = frame.x(i)
        out.append(
            f'<line x1="{_fmt(x)}" x2="{_fmt(x)}" y1="{_fmt(frame.bottom)}" '
            f'y2="{_fmt(frame.bottom + 5)}" stroke="currentColor"/>'
        )
        if i % every == 0 or i == len(ticks) - 1:
            out.append(f'<text x="{_fmt(x)}" y="{_fmt(frame.bottom + 22)}">{escape(tick)}</text>')
    out.append("</g>")
    centre = (frame.left + frame.right) / 2
    out.append(
        f'<text class="chart__axis-title" aria-hidden="true" x="{_fmt(centre)}" '
        f'y="{_fmt(frame.bottom + 46)}" text-anchor="middle" font-weight="600">'
        f"{escape(x_title)}</text>"
    )
    middle = (frame.top + frame.bottom) / 2
    out.append(
        f'<text class="chart__axis-title" aria-hidden="true" x="16" y="{_fmt(middle)}" '
        f'text-anchor="middle" font-weight="600" transform="rotate(-90 16 {_fmt(middle)})">'
        f"{escape(y_title)}</text>"
    )
    # The lines, each with its markers; equal values side by side (`dodges`).
    moved = dodges(len(labels), series)
    for index, line in enumerate(series):
        colour = COLOURS[index % len(COLOURS)]
        dash = DASHES[index % len(DASHES)]
        points = [
            (frame.x(i) + moved[(index, i)], frame.y(v)) if v is not None else None
            for i, v in enumerate(line.values)
        ]
        out.append(
            f'<g class="chart__series chart__series--{index % len(COLOURS)}" '
            f'data-series="{escape(line.name)}">'
        )
        for run in _segments(points):
            coords = " ".join(f"{_fmt(x)},{_fmt(y)}" for x, y in run)
            dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
            out.append(
                f'<polyline class="chart__line" points="{coords}" fill="none" '
                f'stroke="{colour}" stroke-width="2.5" stroke-linejoin="round"{dash_attr}/>'
            )
        for i, v in enumerate(line.values):
            if v is None:
                continue
            label = f"{line.name}, {labels[i]}: {v} {unit}"
            out.append(_marker(index, frame.x(i) + moved[(index, i)], frame.y(v), colour, label))
        out.append("</g>")
    # The legend: a sample of each line (colour, dash and marker) and its name.
    out.append(f'<g class="chart__legend" transform="translate(0 {_fmt(legend_top)})">')
    column_width = (WIDTH - LEFT) / legend_columns
    for index, line in enumerate(series):
        colour = COLOURS[index % len(COLOURS)]
        dash = DASHES[index % len(DASHES)]
        x = LEFT + (index % legend_columns) * column_width
        y = (index // legend_columns) * LEGEND_ROW + LEGEND_ROW / 2
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<g class="chart__series chart__series--{index % len(COLOURS)}">'
            f'<line x1="{_fmt(x)}" x2="{_fmt(x + 36)}" y1="{_fmt(y)}" y2="{_fmt(y)}" '
            f'stroke="{colour}" stroke-width="2.5"{dash_attr}/>'
            + _marker(index, x + 18, y, colour, line.name, "chart__legend-marker")
            + f'<text x="{_fmt(x + 44)}" y="{_fmt(y)}" dominant-baseline="middle">'
            f"{escape(_shorten(line.name, name_limit))}</text></g>"
        )
    out.append("</g></svg>")
    return "".join(out)


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def battle_ticks(labels: Sequence[str]) -> list[str]:
    """Short x labels for a battle chart: "Start", then the battles numbered 1, 2, ..."""
    return [labels[0], *(str(i) for i in range(1, len(labels)))] if labels else []


def resources_chart(history: dict, *, chart_id: str = "resources-chart") -> str:
    """Resources over battles, one line per force (`selectors.resources_history`)."""
    labels = list(history["labels"])
    series = [Series(name=s["name"], values=list(s["values"])) for s in history["series"]]
    names = ", ".join(s.name for s in series)
    latest = "; ".join(
        f"{s.name} {s.values[-1]}" for s in series if s.values and s.values[-1] is not None
    )
    return line_chart(
        chart_id=chart_id,
        title="Resources after each battle",
        description=(
            f"A line for each force ({names}) showing its Resources at the start and after "
            f"each of {len(labels) - 1} confirmed battles. Now: {latest}."
        ),
        labels=labels,
        series=series,
        x_title="Confirmed battles, in order",
        y_title="Resources",
        unit="Resources",
        tick_labels=battle_ticks(labels),
    )


def xp_chart(
    labels: Sequence[str], series: Sequence[Series], *, force_name: str, chart_id: str
) -> str:
    """XP over battles, one line per member of one force (`selectors.xp_history`)."""
    latest = "; ".join(f"{s.name} {s.values[-1]}" for s in series if s.values)
    return line_chart(
        chart_id=chart_id,
        title=f"XP of {force_name}'s members",
        description=(
            f"A line for each member of {force_name} showing their XP at the start and "
            f"after each of {len(labels) - 1} confirmed battles. Now: {latest}."
        ),
        labels=labels,
        series=series,
        x_title="Confirmed battles, in order",
        y_title="XP",
        unit="XP",
        tick_labels=battle_ticks(labels),
    )
