"""ASGI entry point: HTTP through Django, WebSockets through Channels."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "baccarat_site.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from baccarat_site.bodylimit import AsgiBodyLimit  # noqa: E402
from baccarat_site.ws_gate import SocketGate  # noqa: E402
from tables.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": AsgiBodyLimit(django_asgi_app),
        "websocket": SocketGate(URLRouter(websocket_urlpatterns)),
    }
)
