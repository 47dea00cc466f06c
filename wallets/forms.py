"""The staff's money forms (wallet admin): strict amounts, a mandatory reason and a one-time key.

Amounts are typed as plain decimals only (``250``, ``250.5``, ``250.50``): Django's DecimalField reads ``5e8`` as
500,000,000.00 and ``1,000`` depends on the locale, so these fields parse with ``baccarat_site.money`` instead.
Each form carries a hidden one-time key made when the page is drawn; the services move money once per key, so a
double post, a Back-and-resubmit or a proxy's retry of the same page does the work once.
"""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from baccarat_site import money
from wallets import services

REASON_HELP = "Why, in 5 to 200 characters: kept with the ledger transaction and in the audit trail."
_SIGNED_WALLET_PATTERN = r"^-?" + money.WALLET_PATTERN.removeprefix("^")


class AmountField(forms.Field):
    """An amount typed as plain digits with at most two decimals (a leading minus when ``signed``); white space
    around it is ignored."""

    widget = forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off", "maxlength": 20})

    def __init__(self, *, signed: bool = False, **kwargs: Any) -> None:
        self.signed = signed
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> Decimal | None:
        text = str(value).strip() if value is not None else ""
        if not text:
            return None
        amount = money.parse_amount(text, _SIGNED_WALLET_PATTERN if self.signed else money.WALLET_PATTERN)
        if amount is None:
            example = "250.00 or -250.00" if self.signed else "250.00"
            raise ValidationError(
                f"Type the amount as plain digits with at most two decimals, e.g. {example}: no exponent, "
                "no thousands separator, no spaces" + ("." if self.signed else ", no sign."),
                code="invalid",
            )
        if abs(amount) > services.MAX_BALANCE:
            raise ValidationError("That amount is larger than any wallet can hold.", code="max_value")
        return amount


class MoneyMovementForm(forms.Form):
    """A deposit's or withdrawal's amount (> 0), its mandatory reason and the page's one-time key."""

    amount = AmountField(help_text="Greater than zero, plain digits with at most two decimals, e.g. 250.00.")
    reason = forms.CharField(
        min_length=5,
        max_length=200,
        widget=forms.TextInput(attrs={"size": 80}),
        help_text=REASON_HELP,
    )
    key = forms.CharField(widget=forms.HiddenInput, max_length=40)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("initial", {"key": uuid.uuid4().hex})
        super().__init__(*args, **kwargs)

    def clean_amount(self) -> Decimal:
        amount: Decimal = self.cleaned_data["amount"]
        if amount <= 0:
            raise ValidationError("An amount must be greater than zero.")
        return amount


class AdjustmentForm(MoneyMovementForm):
    """An adjustment's signed, non-zero amount, its mandatory reason and the page's one-time key."""

    amount = AmountField(
        signed=True,
        help_text="Signed and non-zero, at most two decimals: 25.00 credits the player, -25.00 debits them.",
    )

    def clean_amount(self) -> Decimal:
        amount: Decimal = self.cleaned_data["amount"]
        if amount == 0:
            raise ValidationError("An adjustment cannot be zero: enter a positive or a negative amount.")
        return amount


class DecisionForm(forms.Form):
    """An approver's note: optional for an approval, required for a rejection."""

    note = forms.CharField(max_length=200, required=False, widget=forms.TextInput(attrs={"size": 80}))

    def __init__(self, *args: Any, note_required: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["note"].required = note_required
        if note_required:
            self.fields["note"].error_messages["required"] = "Say why: the reason is kept with the request."
