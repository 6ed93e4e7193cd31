"""A tool author's first step: generate a typed client from the published schema
(issue #32). `openapi-python-client` must read it without a warning, and name every
model after what it is (no `Field1`-style names made up from a title it could not use)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.api_schema import published_schema

GENERATOR = Path(sys.executable).with_name("openapi-python-client")
MADE_UP_NAME = re.compile(r"^(field|model|type|schema|body|item)_?\d+\.py$")


def generate(schema: dict, where: Path) -> tuple[subprocess.CompletedProcess, Path]:
    (where / "schema.json").write_text(json.dumps(schema))
    (where / "config.yaml").write_text(
        "post_hooks: []\nproject_name_override: dbd_client\npackage_name_override: dbd_client\n"
    )
    out = where / "client"
    done = subprocess.run(
        [
            str(GENERATOR),
            "generate",
            "--path",
            str(where / "schema.json"),
            "--config",
            str(where / "config.yaml"),
            "--meta",
            "none",
            "--output-path",
            str(out),
            "--fail-on-warning",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    return done, out


@pytest.fixture(scope="module")
def client_made(tmp_path_factory):
    return generate(published_schema(), tmp_path_factory.mktemp("client"))


def test_a_client_is_generated_without_a_warning(client_made):
    done, out = client_made
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning" not in (done.stdout + done.stderr).lower()
    assert (out / "models" / "roster_document.py").exists()


def test_every_model_is_named_after_what_it_is(client_made):
    _, out = client_made
    models = sorted(p.name for p in (out / "models").glob("*.py"))
    assert {"roster_document.py", "roster_member.py", "error_list.py", "error_code.py"} <= set(
        models
    )
    assert [m for m in models if MADE_UP_NAME.match(m)] == []
    # The PATCH body names the document's member rather than copying it.
    assert not [m for m in models if m.startswith("roster_document_patch_members")]


def test_a_title_no_type_can_be_named_after_fails_here(tmp_path):
    """The check can fail: the document's old title made its type `Field1`."""
    broken = json.loads(json.dumps(published_schema()))
    broken["components"]["schemas"]["RosterDocument"]["title"] = "dbd-roster/1"
    _done, out = generate(broken, tmp_path)
    models = [p.name for p in (out / "models").glob("*.py")]
    assert "field_1.py" in models
    assert [m for m in models if MADE_UP_NAME.match(m)]
