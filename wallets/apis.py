"""REST for the caller's wallet and ledger (docs/api.md): GET /api/wallet/, GET /api/wallet/ledger/,
(the refill, which needs the tables' minimum stake, is ``baccarat_site.accounts.apis.RefillApi``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from baccarat_site.api.errors import ERRORS
from baccarat_site.api.fields import IsoMillisField
from baccarat_site.api.pagination import PAGE_PARAMETERS, page_of, paginated
from wallets import selectors
from wallets.models import LedgerEntry

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class WalletApi(APIView):
    """The caller's balance."""

    permission_classes = [IsAuthenticated]

    class OutputSerializer(serializers.Serializer[selectors.WalletBalance]):
        class Meta:
            ref_name = "Wallet"

        balance = serializers.DecimalField(max_digits=14, decimal_places=2)
        currency = serializers.CharField()

    @extend_schema(responses={200: OutputSerializer, 401: ERRORS[401]})
    def get(self, request: Request) -> Response:
        return Response(self.OutputSerializer(selectors.wallet_balance(user=cast("User", request.user))).data)


class LedgerApi(APIView):
    """The caller's ledger entries, newest first, paginated: each movement, what caused it, the balance after."""

    permission_classes = [IsAuthenticated]

    class OutputSerializer(serializers.ModelSerializer[LedgerEntry]):
        transaction = serializers.IntegerField(source="transaction_id")
        kind = serializers.CharField(source="transaction.kind")
        reference = serializers.CharField(source="transaction.reference")
        reason = serializers.CharField(source="transaction.reason")
        created_at = IsoMillisField()

        class Meta:
            ref_name = "LedgerEntry"
            model = LedgerEntry
            fields = ("id", "transaction", "kind", "reference", "reason", "amount", "balance_after", "created_at")

    @extend_schema(
        parameters=PAGE_PARAMETERS,
        responses={200: page_of(OutputSerializer, "LedgerPage"), 400: ERRORS[400], 401: ERRORS[401], 404: ERRORS[404]},
    )
    def get(self, request: Request) -> Response:
        entries = selectors.ledger_entries(user=cast("User", request.user))
        return paginated(queryset=entries, serializer_class=self.OutputSerializer, request=request, view=self)
