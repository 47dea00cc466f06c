"""WSGI entry point for the HTTP side only (pages, admin, REST): an option for deployments that
serve WebSockets from daphne (``asgi.py``) and plain HTTP from WSGI worker processes."""

import os

from django.core.wsgi import get_wsgi_application

from baccarat_site.after_response import wsgi_after_response

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "baccarat_site.settings")
# A request's after_response work (a confirm's bets.totals broadcast) runs once its response has been sent.
application = wsgi_after_response(get_wsgi_application())
