"""Celery app: the worker and beat that drive every table's betting windows."""

import logging
import os
from typing import Any

from celery import Celery
from celery.signals import after_setup_logger, task_postrun, task_prerun
from django.conf import settings
from django.db import connections

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "baccarat_site.settings")

app = Celery("baccarat_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

#: The loggers that write a line for every tick at INFO: the worker's "Task ... received" and "Task ... succeeded", and
#: "Discarding revoked task" for each tick that expired unrun (a worker that started late, or fell behind).
TICK_LOGGERS = ("celery.worker.strategy", "celery.app.trace", "celery.worker.request")


class NoTickFilter(logging.Filter):
    """Drops beat's "Scheduler: Sending due task" lines below WARNING; beat's own logger also says "beat: Starting...",
    which stays."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or not str(record.msg).startswith("Scheduler: Sending due task")


@after_setup_logger.connect
def quiet_ticks(**kwargs: Any) -> None:
    """Without ``settings.LOG_TICKS`` the tick lines go, their warnings and errors stay (a failed task, a retry's
    cause at WARNING and above)."""
    if settings.LOG_TICKS:
        return
    for name in TICK_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    beat = logging.getLogger("celery.beat")
    if not any(isinstance(f, NoTickFilter) for f in beat.filters):
        beat.addFilter(NoTickFilter())


@task_prerun.connect
@task_postrun.connect
def database_as_for_a_request(sender: Any = None, **kwargs: Any) -> None:
    """Before and after each task, what Django does before and after each request: close a connection that is
    broken, left in a transaction or older than ``CONN_MAX_AGE`` (0: every one), and keep the others. Celery's
    own fixup would close them all, always (``settings.CELERY_DB_REUSE_MAX``), and a new PostgreSQL session per
    task doubled each table advance's time (bench/RESULTS.md, tables_per_worker). An eager task runs inside its
    caller's request or test, whose connection is not the task's to close."""
    request = getattr(sender, "request", None)
    if getattr(request, "is_eager", False):
        return
    for connection in connections.all(initialized_only=True):
        connection.close_if_unusable_or_obsolete()
