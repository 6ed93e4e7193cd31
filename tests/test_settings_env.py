"""The environment readers behind dbd_site/settings.py."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from dbd_site.env import env_bool, env_int, env_list, env_str

NAME = "DBD_TEST_SETTING"


@pytest.fixture(autouse=True)
def _unset(monkeypatch):
    monkeypatch.delenv(NAME, raising=False)


@pytest.mark.parametrize("raw", ["1", "true", "True", "YES", "on", " on "])
def test_env_bool_true(monkeypatch, raw):
    monkeypatch.setenv(NAME, raw)
    assert env_bool(NAME, default=False) is True


@pytest.mark.parametrize("raw", ["0", "false", "FALSE", "no", "off", ""])
def test_env_bool_false(monkeypatch, raw):
    monkeypatch.setenv(NAME, raw)
    assert env_bool(NAME, default=True) is False


@pytest.mark.parametrize("default", [True, False])
def test_env_bool_default(default):
    assert env_bool(NAME, default=default) is default


@pytest.mark.parametrize("raw", ["2", "yep", "enabled", "tru"])
def test_env_bool_rejects(monkeypatch, raw):
    monkeypatch.setenv(NAME, raw)
    with pytest.raises(ImproperlyConfigured, match=NAME) as excinfo:
        env_bool(NAME, default=False)
    assert repr(raw) in str(excinfo.value)


def test_env_str_value(monkeypatch):
    monkeypatch.setenv(NAME, "s3cret value")
    assert env_str(NAME) == "s3cret value"
    assert env_str(NAME, default="other") == "s3cret value"


@pytest.mark.parametrize("raw", [None, ""])
def test_env_str_default(monkeypatch, raw):
    if raw is not None:
        monkeypatch.setenv(NAME, raw)
    assert env_str(NAME, default="fallback") == "fallback"


@pytest.mark.parametrize("raw", [None, ""])
def test_env_str_required(monkeypatch, raw):
    if raw is not None:
        monkeypatch.setenv(NAME, raw)
    with pytest.raises(ImproperlyConfigured, match=f"{NAME} must be set"):
        env_str(NAME)


@pytest.mark.parametrize(("raw", "expected"), [("0", 0), ("60", 60), (" 42 ", 42), ("-1", -1)])
def test_env_int_value(monkeypatch, raw, expected):
    monkeypatch.setenv(NAME, raw)
    assert env_int(NAME, default=7) == expected


@pytest.mark.parametrize("raw", [None, "", "   "])
def test_env_int_default(monkeypatch, raw):
    if raw is not None:
        monkeypatch.setenv(NAME, raw)
    assert env_int(NAME, default=7) == 7


@pytest.mark.parametrize("raw", ["sixty", "1.5", "1e3", "0x10"])
def test_env_int_rejects(monkeypatch, raw):
    monkeypatch.setenv(NAME, raw)
    with pytest.raises(ImproperlyConfigured, match=NAME) as excinfo:
        env_int(NAME, default=7)
    assert repr(raw) in str(excinfo.value)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("example.org", ["example.org"]),
        ("example.org,www.example.org", ["example.org", "www.example.org"]),
        (" a.test , b.test ,, ", ["a.test", "b.test"]),
        ("", []),
    ],
)
def test_env_list_value(monkeypatch, raw, expected):
    monkeypatch.setenv(NAME, raw)
    assert env_list(NAME, default=["default.test"]) == expected


def test_env_list_default():
    assert env_list(NAME, default=["default.test"]) == ["default.test"]
