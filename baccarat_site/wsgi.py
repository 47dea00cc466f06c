"""WSGI entry point for the HTTP side only (pages, admin, REST): an option for deployments that
serve WebSockets from daphne (``asgi.py``) and plain HTTP from WSGI worker processes."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "baccarat_site.settings")
application = get_wsgi_application()
