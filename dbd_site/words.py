"""Words for numbers, said once for the whole site: "1 enemy", "2 enemies", "0 problems".

Pure: no Django, so the rules' own messages (roster.engine, play.table) use it as the
pages do (the `counted` template filter, dbd_site/templatetags/words.py). static/js/site.js
has the same `counted` for what the browser says on its own.
"""


def counted(number: int, one: str, many: str | None = None) -> str:
    """`number` and its noun, singular for exactly 1: counted(1, "enemy", "enemies") is
    "1 enemy", counted(2, "problem") is "2 problems" (`many` defaults to `one` + "s")."""
    return f"{number} {one if number == 1 else (many or one + 's')}"
