"""Player-facing pages (views in tables/views/, one module per page)."""

from django.urls import path

from tables.views import dealer, fair, lobby, multi, record, rules, table

urlpatterns = [
    path("", lobby.lobby, name="lobby"),
    path("multi/", multi.multi, name="multi"),
    path("tables/<int:table_id>/", table.table_page, name="table"),
    path("tables/<int:table_id>/rules/", rules.rules, name="table-rules"),
    path("rules/", rules.rules, name="rules"),
    path("fair/", fair.fair, name="fair"),
    path("bets/", record.bet_record, name="bet-record"),
    path("bets/rounds/<int:round_id>/", record.bet_round, name="bet-round"),
    path("bets/export.csv", record.bet_export, name="bet-export"),
    path("dealer/", dealer.dealer_home, name="dealer"),
    path("dealer/tables/<int:table_id>/", dealer.dealer_console, name="dealer-console"),
]
