"""What keeps `make run` quiet, piece by piece (the whole start is tests/foundation/test_make_run.py): Celery's tick
lines go below WARNING unless asked for, beat's start line stays, LOG_LEVEL=DEBUG or LOG_TICKS=1 brings everything
back, and the worker's root warning is silenced only for a worker started as root."""

from __future__ import annotations

import logging

import pytest

from baccarat_site import celery as celery_app
from baccarat_site import run


def _record(name: str, level: int, msg: str) -> logging.LogRecord:
    return logging.LogRecord(name, level, __file__, 1, msg, (), None)


def test_beat_loses_its_tick_lines_but_keeps_its_start_and_its_warnings():
    ticks = celery_app.NoTickFilter()
    assert not ticks.filter(_record("celery.beat", logging.INFO, "Scheduler: Sending due task %s (%s)"))
    assert ticks.filter(_record("celery.beat", logging.INFO, "beat: Starting..."))
    assert ticks.filter(_record("celery.beat", logging.WARNING, "Scheduler: Sending due task %s (%s)"))
    assert ticks.filter(_record("celery.beat", logging.ERROR, "Message Error: %s"))


@pytest.fixture
def tick_loggers():
    names = (*celery_app.TICK_LOGGERS, "celery.beat")
    saved = {name: (logging.getLogger(name).level, list(logging.getLogger(name).filters)) for name in names}
    for name in names:
        logging.getLogger(name).setLevel(logging.NOTSET)
        logging.getLogger(name).filters = []
    yield
    for name, (level, filters) in saved.items():
        logging.getLogger(name).setLevel(level)
        logging.getLogger(name).filters = filters


def test_without_log_ticks_the_worker_keeps_warnings_and_errors_of_tasks_only(settings, tick_loggers):
    settings.LOG_TICKS = False
    celery_app.quiet_ticks()
    celery_app.quiet_ticks()  # Celery may set logging up twice: one filter, not two
    for name in celery_app.TICK_LOGGERS:
        logger = logging.getLogger(name)
        assert not logger.isEnabledFor(logging.INFO)
        assert logger.isEnabledFor(logging.WARNING)
    assert len(logging.getLogger("celery.beat").filters) == 1


def test_log_ticks_leaves_celery_as_it_is(settings, tick_loggers):
    settings.LOG_TICKS = True
    celery_app.quiet_ticks()
    for name in celery_app.TICK_LOGGERS:
        assert logging.getLogger(name).level == logging.NOTSET
    assert logging.getLogger("celery.beat").filters == []


@pytest.mark.parametrize(
    ("env", "verbose"),
    [
        ({}, False),
        ({"LOG_LEVEL": "INFO"}, False),
        ({"LOG_LEVEL": "debug"}, True),
        ({"LOG_TICKS": "1"}, True),
        ({"LOG_TICKS": "0"}, False),
    ],
)
def test_verbose_logs_on_request(monkeypatch, env, verbose):
    monkeypatch.delenv("LOG_LEVEL", raising=False)
    monkeypatch.delenv("LOG_TICKS", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert run.verbose_logs() is verbose


def test_the_root_warning_is_silenced_for_a_worker_started_as_root_only(monkeypatch, settings):
    assert settings.CELERY_ACCEPT_CONTENT == ["json"]  # what makes the warning moot here
    monkeypatch.setenv("PYTHONWARNINGS", "default::ResourceWarning")
    monkeypatch.delenv("DB_CONN_MAX_AGE", raising=False)
    monkeypatch.setattr(run.os, "geteuid", lambda: 0)
    assert run.worker_env() == {
        "DB_CONN_MAX_AGE": "600",
        "PYTHONWARNINGS": f"default::ResourceWarning,ignore:{run.ROOT_WARNING}",
    }
    monkeypatch.setattr(run.os, "geteuid", lambda: 1000)
    assert run.worker_env() == {"DB_CONN_MAX_AGE": "600"}


def test_the_worker_keeps_its_database_connection_unless_told_otherwise(monkeypatch):
    monkeypatch.delenv("DB_CONN_MAX_AGE", raising=False)
    assert run.worker_env()["DB_CONN_MAX_AGE"] == run.WORKER_CONN_MAX_AGE
    monkeypatch.setenv("DB_CONN_MAX_AGE", "0")
    assert run.worker_env()["DB_CONN_MAX_AGE"] == "0"
