"""Player-facing pages."""

from django.urls import path

from tables import views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("tables/<int:table_id>/", views.table_page, name="table"),
    path("bets/", views.bet_record, name="bet-record"),
]
