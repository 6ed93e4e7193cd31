"""The table's rules are a package with no Django: plain data in, plain data out."""

import ast
import sys
from pathlib import Path

import play.table

PACKAGE = Path(play.table.__file__).parent
# What a module of the package may import besides the standard library and itself: the
# error base and the rules catalogue, both pure.
ALLOWED = {"dbd_site.errors", "rules.catalogue"}


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_the_package_imports_only_the_standard_library_and_pure_modules():
    modules = sorted(PACKAGE.glob("*.py"))
    assert len(modules) > 5
    foreign = {
        path.name: sorted(
            name
            for name in imported(path)
            if name.split(".")[0] not in sys.stdlib_module_names
            and name not in ALLOWED
            and not name.startswith("play.table")
        )
        for path in modules
    }
    assert foreign == {path.name: [] for path in modules}
