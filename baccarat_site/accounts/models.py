"""A player's preferences (the language the casino speaks to them and whether the tables make sounds), and the
personal limit staff may set on them (:class:`PlayerLimit`)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from baccarat_site import money


class Profile(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    # Empty: follow the browser (Accept-Language) or the language chosen on the page.
    language = models.CharField(max_length=8, blank=True, choices=settings.LANGUAGES)
    sound = models.BooleanField(default=False, help_text="Play the tables' sounds (off until the player turns it on).")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(language="") | Q(language__in=[code for code, _name in settings.LANGUAGES]),
                name="profile_language_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.language or 'browser language'}, sound {'on' if self.sound else 'off'})"


class PlayerLimit(models.Model):
    """A player's personal maximum stake, set by a supervisor (docs/rules.md "Personal limits").

    ``max_stake`` caps the player's round total on each bet type, Player and Banker included (whatever the
    table's difference limit), on every table: the binding maximum is the lower of the table's and this one.
    It only ever narrows the table's limits (a restricted player); it never raises them. Empty: no personal
    limit. The row is never deleted: clearing the limit is a change with a reason like any other, and every
    change is written to the audit trail by ``baccarat_site.accounts.services.player_limit_set``.
    """

    # The primary key: a bet reads this row by the player's id, one index probe inside the placement's query.
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="player_limit"
    )
    max_stake = models.DecimalField(
        "personal maximum stake",
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=(
            "The most this player may stake on one bet type in one round, at any table. It can only lower the "
            "table's maximum. Leave empty for no personal limit."
        ),
    )
    reason = models.CharField(max_length=200, help_text="Why the limit was last set or cleared.")
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        verbose_name = "player limit"
        constraints = [
            models.CheckConstraint(
                condition=Q(max_stake__isnull=True) | Q(max_stake__gte=money.CENT),
                name="player_limit_max_stake_positive",
            ),
        ]

    def __str__(self) -> str:
        limit = "none" if self.max_stake is None else money.display(self.max_stake)
        return f"{self.user}: personal maximum {limit}"
