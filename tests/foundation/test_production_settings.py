"""Production settings: a start without SECRET_KEY, DATABASE_URL or REDIS_URL is refused (never the embedded
servers' quiet fallback), and with them `check --deploy` is clean; development keeps its conveniences."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Each test starts manage.py in a fresh interpreter (a second or more): `make test-fast` leaves them out.
pytestmark = pytest.mark.slow
KEY = "x" * 20 + "-production-secret-key-for-the-test-only-0123456789"


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"SECRET_KEY", "DATABASE_URL", "REDIS_URL", "DEBUG", "BACCARAT_DEV", "ALLOWED_HOSTS"}
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("missing", ["SECRET_KEY", "DATABASE_URL", "REDIS_URL"])
def test_a_production_start_without_a_key_or_a_url_is_refused(missing):
    env = {
        "BACCARAT_DEV": "0",
        "SECRET_KEY": KEY,
        "DATABASE_URL": "postgresql://casino@db.internal:5432/casino",
        "REDIS_URL": "redis://cache.internal:6379/0",
    }
    del env[missing]
    result = manage("check", **env)
    assert result.returncode != 0
    assert f"Refusing a production start without {missing}" in result.stderr


@pytest.mark.parametrize(
    ("variable", "value", "refusal"),
    [
        ("TRUSTED_PROXIES", "10.0.0.10,nginx.internal", "TRUSTED_PROXIES: 'nginx.internal' is not an address"),
        ("SIGNIN_ADDRESS_HEADER", "HTTP_X_REAL_IP", "SIGNIN_ADDRESS_HEADER is no longer read: set TRUSTED_PROXIES"),
        ("CLIENT_ADDRESS_HEADER", "X-Forwarded-For: 1.2.3.4", "is not a header name"),
    ],
)
def test_a_start_with_an_unreadable_proxy_or_the_old_address_header_is_refused(variable, value, refusal):
    result = manage(
        "check",
        BACCARAT_DEV="0",
        SECRET_KEY=KEY,
        DATABASE_URL="postgresql://casino@db.internal:5432/casino",
        REDIS_URL="redis://cache.internal:6379/0",
        **{variable: value},
    )
    assert result.returncode != 0
    assert refusal in result.stderr


def test_check_deploy_is_clean_with_only_a_key_hosts_and_the_urls():
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        BACCARAT_DEV="0",
        SECRET_KEY=KEY,
        ALLOWED_HOSTS="casino.example",
        DATABASE_URL="postgresql://casino@db.internal:5432/casino",
        REDIS_URL="redis://cache.internal:6379/0",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_cookies_are_secure_and_https_is_enforced():
    code = (
        "from django.conf import settings as s;"
        "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS > 0,"
        " getattr(s, 'SECURE_PROXY_SSL_HEADER', None))"
    )
    prod = manage(
        "shell",
        "-c",
        code,
        BACCARAT_DEV="0",
        SECRET_KEY=KEY,
        DATABASE_URL="postgresql://casino@db.internal:5432/casino",
        REDIS_URL="redis://cache.internal:6379/0",
        SECURE_PROXY_SSL_HEADER="1",
    )
    assert prod.stdout.strip().splitlines()[-1] == "True True True True ('HTTP_X_FORWARDED_PROTO', 'https')", (
        prod.stderr
    )
    dev = manage(
        "shell",
        "-c",
        code,
        BACCARAT_DEV="1",
        DATABASE_URL=os.environ["DATABASE_URL"],
        REDIS_URL=os.environ["REDIS_URL"],
    )
    assert dev.stdout.strip().splitlines()[-1] == "False False False False None", dev.stderr


def test_development_is_never_guessed_from_var_or_debug(tmp_path):
    """Only BACCARAT_DEV=1 makes development: a production box with DEBUG on and a var/ beside the code (copied
    with it) refuses to start without its key and URLs, instead of starting on a development key and a database
    of its own."""
    var = tmp_path / "var"
    var.mkdir()
    result = manage("check", BACCARAT_VAR_DIR=str(var), DEBUG="1")
    assert result.returncode != 0
    assert "Refusing a production start without SECRET_KEY, DATABASE_URL, REDIS_URL" in result.stderr
    assert not (var / "pg").exists()  # no embedded server was started for it


def test_development_mode_reads_baccarat_dev_only(monkeypatch, tmp_path):
    from django.core.exceptions import ImproperlyConfigured

    from baccarat_site.env import development_mode

    monkeypatch.setenv("BACCARAT_VAR_DIR", str(tmp_path))  # exists
    monkeypatch.setenv("DEBUG", "1")
    monkeypatch.delenv("BACCARAT_DEV", raising=False)
    assert development_mode() is False
    for value, expected in (("1", True), ("yes", True), ("0", False), ("", False)):
        monkeypatch.setenv("BACCARAT_DEV", value)
        assert development_mode() is expected
    monkeypatch.setenv("BACCARAT_DEV", "ture")
    with pytest.raises(ImproperlyConfigured):
        development_mode()
