"""`manage.py export_campaign` and `import_campaign`: a round trip through a file."""

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from campaign.exports import FORMAT, export_campaign
from campaign.models import Campaign
from tests.campaign.test_exports import busy_campaign

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def empty_the_site() -> None:
    Campaign.objects.all().delete()
    get_user_model().objects.all().delete()


def test_export_then_import_into_an_empty_site(tmp_path, organiser, alice, bob):
    campaign = busy_campaign(organiser, alice, bob)
    path = tmp_path / "autumn.json"
    out, err = run("export_campaign", str(campaign.pk), "-o", str(path))
    assert out == ""
    assert "Exported “Autumn Cup”" in err
    exported = json.loads(path.read_text(encoding="utf-8"))
    assert exported["format"] == FORMAT
    assert exported == json.loads(json.dumps(export_campaign(campaign=campaign)))

    empty_the_site()
    out, _ = run("import_campaign", str(path))
    imported = Campaign.objects.get()
    assert "Imported “Autumn Cup”" in out
    assert "4 players, 3 forces, 3 battles" in out
    assert json.loads(json.dumps(export_campaign(campaign=imported))) == exported


def test_export_to_standard_output_and_import_from_standard_input(
    monkeypatch, organiser, alice, bob
):
    campaign = busy_campaign(organiser, alice, bob)
    out, _ = run("export_campaign", str(campaign.pk))
    assert json.loads(out)["campaign"]["name"] == "Autumn Cup"
    empty_the_site()
    monkeypatch.setattr("sys.stdin", io.StringIO(out))
    result, _ = run("import_campaign", "-")
    assert "Imported" in result
    assert Campaign.objects.count() == 1


def test_an_unknown_campaign_is_a_clear_error():
    with pytest.raises(CommandError, match="no campaign with id 999"):
        run("export_campaign", "999")


def test_import_refuses_a_site_with_those_users(tmp_path, organiser, alice, bob):
    campaign = busy_campaign(organiser, alice, bob)
    path = tmp_path / "c.json"
    run("export_campaign", str(campaign.pk), "-o", str(path))
    with pytest.raises(CommandError, match="already exist on this site") as caught:
        run("import_campaign", str(path))
    assert "--reuse-users" in str(caught.value)
    assert Campaign.objects.count() == 1
    # Told to, it attaches the copy to the existing accounts.
    out, _ = run("import_campaign", str(path), "--reuse-users")
    assert "Imported" in out
    assert Campaign.objects.count() == 2


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not JSON"),
        ('{"format": "dbd-roster/1"}', "not a dbd-campaign/1 document"),
        ('{"format": "dbd-campaign/1"}', "incomplete or damaged"),
    ],
)
def test_bad_files_import_nothing(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CommandError, match=message):
        run("import_campaign", str(path))
    assert not Campaign.objects.exists()


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="Could not read"):
        run("import_campaign", str(tmp_path / "nope.json"))
