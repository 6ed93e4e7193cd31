"""The operations guide documents every environment variable the settings read."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_setting_from_the_environment_is_in_the_operations_table():
    settings = (ROOT / "dbd_site" / "settings.py").read_text()
    read = set(re.findall(r'env_(?:bool|str|int|list)\(\s*"([A-Z0-9_]+)"', settings))
    guide = (ROOT / "docs" / "operations.md").read_text()
    table = guide[guide.index("## Environment variables") :]
    table = table[: table.index("\n## ")]
    documented = set(re.findall(r"^\| `([A-Z0-9_]+)`(?: / `([A-Z0-9_]+)`)?", table, re.M))
    names = {name for pair in documented for name in pair if name}
    assert {"REDIS_URL", "TRUSTED_PROXY_COUNT", "RELEASE"} <= read
    assert read - names == set()
