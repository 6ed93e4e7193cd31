"""No function of the site's code runs over 60 lines without saying why (issue #33).

A long function is allowed when its docstring says "Long because ...": one sequence
read top to bottom (a transaction's steps, a document's sections) can be clearer whole.
The tools beside the site (bench/, scripts/) and the tests are left out.
"""

import ast
from pathlib import Path

from django.conf import settings

PACKAGES = ("dbd_site", "accounts", "idempotency", "rules", "roster", "campaign", "play", "events")
MAX_LINES = 60


def long_functions_without_a_reason() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((Path(settings.BASE_DIR) / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_LINES and "Long because" not in (ast.get_docstring(node) or ""):
                    where = path.relative_to(settings.BASE_DIR)
                    found.append(f"{where}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_function_is_long_without_a_reason():
    assert long_functions_without_a_reason() == [], (
        f"Split these, or say in the docstring why one piece reads better "
        f"('Long because ...'); the limit is {MAX_LINES} lines."
    )
