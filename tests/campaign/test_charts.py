"""The server-side SVG charts: well-formed, accessible, escaped, and true to the data."""

import xml.etree.ElementTree as ET

import pytest

from campaign import charts

NS = {"svg": "http://www.w3.org/2000/svg"}
SVG = "{http://www.w3.org/2000/svg}"

HISTORY = {
    "labels": ["Start", "2025-03-01 Capture the Flag", "2025-03-08 Hold the Library"],
    "battles": [1, 2],
    "series": [
        {"campaign_force": 1, "name": "Red Club", "values": [45, 55, 60]},
        {"campaign_force": 2, "name": "Blue Club", "values": [45, 50, 57]},
        {"campaign_force": 3, "name": "Late Comers", "values": [None, None, 45]},
    ],
}


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def series_groups(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if "data-series" in g.attrib]


def polyline_points(group: ET.Element) -> list[list[tuple[float, float]]]:
    return [
        [tuple(float(n) for n in pair.split(",")) for pair in line.attrib["points"].split()]
        for line in group.iter(f"{SVG}polyline")
    ]


def test_the_svg_is_well_formed_and_accessible():
    root = parse(charts.resources_chart(HISTORY, chart_id="res"))
    assert root.tag == f"{SVG}svg"
    assert root.attrib["role"] == "img"
    assert root.attrib["aria-labelledby"] == "res-title res-desc"
    title = root.find("svg:title", NS)
    desc = root.find("svg:desc", NS)
    assert title is not None
    assert title.attrib["id"] == "res-title"
    assert title.text == "Resources after each battle"
    assert desc is not None
    assert desc.attrib["id"] == "res-desc"
    assert "Red Club, Blue Club, Late Comers" in desc.text
    assert "Now: Red Club 60; Blue Club 57; Late Comers 45" in desc.text
    assert "viewBox" in root.attrib


def test_axis_titles_ticks_and_a_legend():
    svg = charts.resources_chart(HISTORY)
    root = parse(svg)
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "Resources" in texts  # y axis
    assert "Confirmed battles, in order" in texts  # x axis
    assert [
        t.text
        for g in root.iter(f"{SVG}g")
        if g.get("class") == "chart__x-ticks"
        for t in g
        if t.tag == f"{SVG}text"
    ] == ["Start", "1", "2"]
    legend = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "chart__legend")
    assert [t.text for t in legend.iter(f"{SVG}text")] == ["Red Club", "Blue Club", "Late Comers"]


def test_one_line_per_force_and_the_points_match_the_data():
    svg = charts.resources_chart(HISTORY)
    root = parse(svg)
    groups = series_groups(root)
    assert [g.attrib["data-series"] for g in groups] == ["Red Club", "Blue Club", "Late Comers"]
    frame = charts.frame_for(
        HISTORY["labels"], [charts.Series(s["name"], s["values"]) for s in HISTORY["series"]]
    )
    assert frame.top_value == 60
    # Red and Blue both start at 45: drawn side by side, half a dodge either way.
    half = charts.DODGE / 2
    moved = {0: {0: -half}, 1: {0: half}}
    for k, (group, data) in enumerate(zip(groups, HISTORY["series"], strict=True)):
        expected = [
            (frame.x(i) + moved.get(k, {}).get(i, 0), frame.y(v))
            for i, v in enumerate(data["values"])
            if v is not None
        ]
        lines = polyline_points(group)
        assert len(lines) == 1
        assert lines[0] == expected
        markers = [m for m in group.iter(f"{SVG}path") if m.get("class") == "chart__marker"]
        titles = [m.find("svg:title", NS).text for m in markers]
        assert titles == [
            f"{data['name']}, {label}: {v} Resources"
            for label, v in zip(HISTORY["labels"], data["values"], strict=True)
            if v is not None
        ]
    # Higher values sit higher on the page (smaller y).
    red = polyline_points(groups[0])[0]
    assert red[0][1] > red[1][1] > red[2][1]
    # The bottom of the axis is 0; the top is the round number at or above the data.
    assert frame.y(0) == frame.bottom
    assert frame.y(60) == frame.top


def test_equal_values_are_drawn_side_by_side():
    """Members with the same XP do not hide one another (issue #31): at each battle, the
    points of equal value spread out around it in the series' order; a lone one stays."""
    series = [
        charts.Series("Emma", [0, 3, 7]),
        charts.Series("Julius", [0, 3, 7]),
        charts.Series("Kenji", [0, 2, 6]),
        charts.Series("Late", [None, None, 7]),
    ]
    d = charts.DODGE
    assert charts.dodges(3, series) == {
        (0, 0): -d, (1, 0): 0, (2, 0): d,
        (0, 1): -d / 2, (1, 1): d / 2, (2, 1): 0,
        (0, 2): -d, (1, 2): 0, (3, 2): d, (2, 2): 0,
    }  # fmt: skip
    root = parse(charts.xp_chart(["Start", "One", "Two"], series, force_name="Red", chart_id="xp"))
    places = [
        (m.get("d").split(" ")[0])
        for m in root.iter(f"{SVG}path")
        if m.get("class") == "chart__marker"
    ]
    assert len(places) == len(set(places)) == 10  # no marker on top of another


def test_a_gap_breaks_the_line():
    svg = charts.line_chart(
        chart_id="gap",
        title="t",
        description="d",
        labels=["a", "b", "c", "d"],
        series=[charts.Series("Gappy", [1, None, 3, 4])],
        x_title="x",
        y_title="y",
        unit="XP",
    )
    (group,) = series_groups(parse(svg))
    lines = polyline_points(group)
    assert [len(line) for line in lines] == [1, 2]


def test_names_are_escaped():
    nasty = '<script>alert("x")</script> & co'
    history = {
        "labels": ["Start", '<img src=x onerror="y">'],
        "series": [{"name": nasty, "values": [1, 2]}],
    }
    svg = charts.resources_chart(history, chart_id='a"b<c')
    assert "<script" not in svg
    assert "<img" not in svg
    assert 'id="a"b' not in svg
    root = parse(svg)  # still well-formed
    assert series_groups(root)[0].attrib["data-series"] == nasty
    desc = root.find("svg:desc", NS).text
    assert nasty in desc
    marker_titles = [t.text for t in root.iter(f"{SVG}title")]
    assert f'{nasty}, <img src=x onerror="y">: 2 Resources' in marker_titles


def test_no_style_attributes_for_the_csp():
    svg = charts.resources_chart(HISTORY)
    assert "style=" not in svg
    assert "<style" not in svg
    assert "<script" not in svg


def test_colour_is_not_the_only_cue():
    series = [charts.Series(f"Member {i}", [0, i]) for i in range(8)]
    svg = charts.line_chart(
        chart_id="xp",
        title="t",
        description="d",
        labels=["Start", "1"],
        series=series,
        x_title="x",
        y_title="y",
        unit="XP",
    )
    root = parse(svg)
    groups = series_groups(root)
    colours = {next(g.iter(f"{SVG}polyline")).attrib["stroke"] for g in groups}
    dashes = {next(g.iter(f"{SVG}polyline")).get("stroke-dasharray", "") for g in groups}
    assert len(colours) == 8
    assert len(dashes) == 8
    assert len(set(charts.MARKERS)) == len(charts.MARKERS) == 8
    # Text and axes follow the page's text colour (dark mode).
    assert root.attrib["fill"] == "currentColor"


def test_xp_chart_for_one_force():
    svg = charts.xp_chart(
        ["Start", "b1"],
        [charts.Series("Ann", [0, 3]), charts.Series("Ben", [0, 2])],
        force_name="Red <Club>",
        chart_id="xp-1",
    )
    root = parse(svg)
    assert root.find("svg:title", NS).text == "XP of Red <Club>'s members"
    assert len(series_groups(root)) == 2


@pytest.mark.parametrize(
    ("largest", "top", "step"),
    [(0, 5, 1), (3, 3, 1), (7, 8, 2), (45, 50, 10), (60, 60, 20), (63, 80, 20), (1234, 1500, 500)],
)
def test_nice_axis_tops(largest, top, step):
    assert charts.nice_top(largest) == (top, step)
    assert top >= largest


def test_a_single_point_is_centred():
    frame = charts.Frame(count=1, top_value=5)
    assert frame.x(0) == (frame.left + frame.right) / 2


def test_long_force_names_get_a_legend_row_of_their_own_and_are_not_cut():
    history = {
        "labels": ["Start", "1 Mar: Capture the Flag"],
        "series": [
            {"name": "Literature Club Irregulars", "values": [11, 14]},
            {"name": "Robotics Rebels", "values": [40, 43]},
        ],
    }
    root = parse(charts.resources_chart(history))
    legend = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "chart__legend")
    texts = list(legend.iter(f"{SVG}text"))
    assert [t.text for t in texts] == ["Literature Club Irregulars", "Robotics Rebels"]
    assert [t.get("x") for t in texts] == [texts[0].get("x")] * 2  # one column
    assert texts[0].get("y") != texts[1].get("y")


def test_short_names_share_legend_rows_in_two_columns():
    root = parse(charts.resources_chart(HISTORY))
    legend = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "chart__legend")
    texts = list(legend.iter(f"{SVG}text"))
    assert texts[0].get("y") == texts[1].get("y")
    assert texts[0].get("x") != texts[1].get("x")
