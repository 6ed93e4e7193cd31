"""Numbers said with their nouns, once for the whole site (dbd_site.words): "1 enemy",
"2 enemies", never "1 enemies"."""

import pytest
from django.template import Context, Template

from dbd_site.words import counted


@pytest.mark.parametrize(
    ("number", "nouns", "said"),
    [
        (0, ("enemy", "enemies"), "0 enemies"),
        (1, ("enemy", "enemies"), "1 enemy"),
        (2, ("enemy", "enemies"), "2 enemies"),
        (1, ("problem",), "1 problem"),
        (3, ("problem",), "3 problems"),
        (1, ("success", "successes"), "1 success"),
        (2, ("success", "successes"), "2 successes"),
    ],
)
def test_counted(number, nouns, said):
    assert counted(number, *nouns) == said


def test_the_template_filter_is_everywhere():
    """A built-in of every template: no {% load %} needed."""
    template = Template(
        '{{ a|counted:"enemy,enemies" }}; {{ b|counted:"enemy,enemies" }}; '
        '{{ c|counted:"member" }}; {{ d|counted:"member" }}'
    )
    said = template.render(Context({"a": 1, "b": 2, "c": 1, "d": 0}))
    assert said == "1 enemy; 2 enemies; 1 member; 0 members"


def test_no_template_counts_by_hand():
    """Every count with its noun goes through `counted`, not `pluralize` beside a number."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "templates"
    offenders = [
        str(path.relative_to(root))
        for path in root.rglob("*.html")
        if "|pluralize" in path.read_text()
    ]
    assert offenders == []
