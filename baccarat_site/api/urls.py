"""Every REST route under /api/ (docs/api.md)."""

from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from baccarat_site.accounts.apis import (
    LimitsApi,
    LogoutApi,
    RealityCheckApi,
    RefillApi,
    SelfExclusionApi,
    TimeOutApi,
    TokenApi,
)
from baccarat_site.api.errors import api_not_found
from tables import apis as table_apis
from tables import dealer_apis
from wallets import apis as wallet_apis

urlpatterns = [
    path("auth/token/", TokenApi.as_view(), name="api-token"),
    path("auth/logout/", LogoutApi.as_view(), name="api-logout"),
    path("tables/", table_apis.TableListApi.as_view(), name="api-tables"),
    path("tables/<int:table_id>/", table_apis.TableDetailApi.as_view(), name="api-table"),
    path("rounds/<int:round_id>/", table_apis.RoundDetailApi.as_view(), name="api-round"),
    path("rounds/<int:round_id>/bets/", table_apis.BetPlaceApi.as_view(), name="api-round-bets"),
    path("bets/", table_apis.BetListApi.as_view(), name="api-bets"),
    path("wallet/", wallet_apis.WalletApi.as_view(), name="api-wallet"),
    path("wallet/ledger/", wallet_apis.LedgerApi.as_view(), name="api-ledger"),
    path("wallet/refill/", RefillApi.as_view(), name="api-wallet-refill"),
    path("account/time-out/", TimeOutApi.as_view(), name="api-account-time-out"),
    path("account/self-exclusion/", SelfExclusionApi.as_view(), name="api-account-self-exclusion"),
    path("account/limits/", LimitsApi.as_view(), name="api-account-limits"),
    path("account/reality-check/", RealityCheckApi.as_view(), name="api-account-reality-check"),
    path("dealer/tables/<int:table_id>/", dealer_apis.ConsoleApi.as_view(), name="api-dealer-console"),
    path("dealer/tables/<int:table_id>/cards/", dealer_apis.CardScanApi.as_view(), name="api-dealer-cards"),
    path("dealer/tables/<int:table_id>/burn/", dealer_apis.BurnApi.as_view(), name="api-dealer-burn"),
    path("dealer/tables/<int:table_id>/cut-card/", dealer_apis.CutCardApi.as_view(), name="api-dealer-cut-card"),
    path("dealer/tables/<int:table_id>/shift/", dealer_apis.ShiftApi.as_view(), name="api-dealer-shift"),
    path("dealer/tables/<int:table_id>/supervisor/", dealer_apis.SupervisorCallApi.as_view(), name="api-dealer-call"),
    path("dealer/tables/<int:table_id>/resume/", dealer_apis.ResumeApi.as_view(), name="api-dealer-resume"),
    path("dealer/tables/<int:table_id>/void/", dealer_apis.VoidApi.as_view(), name="api-dealer-void"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    re_path(r"^(?P<path>[\s\S]*)$", api_not_found),  # last: anything else is the API's JSON 404
]
