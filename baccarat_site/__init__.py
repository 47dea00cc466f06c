"""The project package: settings, URLs, ASGI/WSGI entry points and the plumbing every app shares.

The Celery app lives in ``baccarat_site.celery`` and is loaded by whatever sends or runs a task
(``tables.tasks`` imports it), so importing a plain module from here (``baccarat_site.money``) loads
neither Celery nor Django.
"""
