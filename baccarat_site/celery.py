"""Celery app: the worker and beat that drive every table's betting windows."""

import logging
import os
from typing import Any

from celery import Celery
from celery.signals import after_setup_logger
from django.conf import settings

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
