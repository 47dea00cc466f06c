from django.urls import path

from tables import consumers, dealer_consumers, lobby

websocket_urlpatterns = [
    path("ws/tables/<int:table_id>/", consumers.TableConsumer.as_asgi()),
    path("ws/lobby/", lobby.LobbyConsumer.as_asgi()),
    path("ws/dealer/tables/<int:table_id>/", dealer_consumers.DealerConsoleConsumer.as_asgi()),
]
