"""The settings django-stubs' mypy plugin loads (pyproject.toml, ``[tool.django-stubs]``).

The plugin imports the settings and runs ``django.setup()`` to learn the models; it never connects to a
database. ``baccarat_site.settings`` starts no server, but outside development it refuses to load without the
URLs; placeholder URLs, set only when none is given and only in the type checker's own process, let a type check
run anywhere.
"""

import os

os.environ.setdefault("BACCARAT_DEV", "1")
os.environ.setdefault("DATABASE_URL", "postgresql://typecheck@127.0.0.1:1/typecheck")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:1/0")

from baccarat_site.settings import *  # noqa: F403
