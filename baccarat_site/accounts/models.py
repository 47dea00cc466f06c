"""Players and what the casino keeps about them: preferences (language, sound), sign-ins, the stops on their play
(restrictions), the personal limit staff may set (:class:`PlayerLimit`), staff notes, and the Player proxy the
admin lists."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
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


class SignIn(models.Model):
    """One successful sign-in: who, when, from which address, browser and device (``accounts.services``).

    Written on Django's ``user_logged_in`` (the login page, the admin, sign-up) and when an API token is issued.
    ``device_id`` is the long-lived random cookie the browser carries (``DEVICE_COOKIE_NAME``); two accounts that
    share an address or a device are *linked* for the risk alerts (``tables.services.risk``).
    """

    class Method(models.TextChoices):
        PAGE = "page", "Sign-in page or admin"
        API_TOKEN = "api_token", "API token"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sign_ins")
    at = models.DateTimeField(auto_now_add=True)
    method = models.CharField(max_length=10, choices=Method.choices, default=Method.PAGE)
    ip_address = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=300, blank=True)
    device_id = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [
            models.Index(fields=["user", "-at"], name="signin_user_recent"),
            models.Index(fields=["ip_address", "-at"], name="signin_address_recent"),
            models.Index(fields=["device_id", "-at"], name="signin_device_recent", condition=~Q(device_id="")),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(method__in=["page", "api_token"]), name="signin_method_known"),
        ]

    def __str__(self) -> str:
        return f"{self.user} signed in from {self.ip_address or 'unknown address'} at {self.at:%Y-%m-%d %H:%M}"


class Restriction(models.Model):
    """A stop on a player's play: while active, sign-in, API tokens and bets are refused.

    - ``suspension``: by staff with ``accounts.suspend_player``, with a reason, until a staff member reinstates.
    - ``time_out`` / ``self_exclusion``: by the player, for a fixed period (docs/api.md); never lifted early,
      by the player or by staff (the database refuses a lift).
    - ``closure``: the account closed by staff; permanent.

    Active means ``starts_at <= now < ends_at`` (no end: until lifted) and not lifted. Rows are never deleted;
    lifting records who, when and why.
    """

    class Kind(models.TextChoices):
        SUSPENSION = "suspension", "Suspended by staff"
        TIME_OUT = "time_out", "Time-out"
        SELF_EXCLUSION = "self_exclusion", "Self-exclusion"
        CLOSURE = "closure", "Account closed"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="restrictions")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField(null=True, blank=True)
    reason = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    lift_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-starts_at", "-id"]
        permissions = [("suspend_player", "Can suspend, reinstate and close a player's account")]
        indexes = [
            models.Index(fields=["user"], condition=Q(lifted_at__isnull=True), name="restriction_unlifted"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(ends_at__isnull=True) | Q(ends_at__gt=models.F("starts_at")), name="restriction_ends_after"
            ),
            models.CheckConstraint(
                condition=~Q(kind__in=["time_out", "self_exclusion"])
                | (Q(ends_at__isnull=False) & Q(lifted_at__isnull=True) & Q(created_by__isnull=True)),
                name="restriction_players_own_run_their_course",
            ),
            models.CheckConstraint(
                condition=~Q(kind__in=["suspension", "closure"]) | Q(created_by__isnull=False),
                name="restriction_staff_ones_have_their_author",
            ),
        ]

    def __str__(self) -> str:
        until = f" until {self.ends_at:%Y-%m-%d %H:%M} UTC" if self.ends_at else ""
        return f"{self.get_kind_display()} of {self.user}{until}"


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


class PlayerNote(models.Model):
    """A staff member's note on a player (what support, risk or a supervisor saw and did). Append-only: written
    by ``accounts.services.player_note_add``, never edited or deleted in the admin."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="staff_notes")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    text = models.CharField(max_length=1000)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.author} on {self.player}: {self.text[:40]}"


class PlayerManager(models.Manager["Player"]):
    def get_queryset(self) -> models.QuerySet[Player]:
        return super().get_queryset().filter(is_staff=False, is_superuser=False)


class Player(get_user_model()):  # type: ignore[misc]
    """The players (not staff) as the admin's player pages list them: a proxy of the user model."""

    objects = PlayerManager()

    class Meta:
        proxy = True
        ordering = ["username"]


#: Every limit a player may set (``PlayLimit.kind``): the amounts, then the minutes.
PLAY_LIMIT_KINDS = (
    "deposit_day",
    "deposit_week",
    "deposit_month",
    "loss_day",
    "loss_week",
    "loss_month",
    "wager_day",
    "wager_week",
    "wager_month",
    "session_minutes",
    "reality_check_minutes",
)


class PlayLimit(models.Model):
    """One change to one of a player's responsible-gaming limits (``baccarat_site.accounts.limits``).

    Rows are never deleted: together they are the limits' history. A change that makes play stricter (a lower
    amount, a new limit, a shorter session, a more frequent reality check) applies at once (``applies_at`` =
    ``requested_at``); one that loosens it (a higher amount, no limit any more) applies 24 hours later, and is
    *pending* until then. A later change of the same limit made while one is pending cancels it
    (``cancelled_at``). The limit in force is the newest uncancelled row whose ``applies_at`` has passed;
    ``value`` null means no limit.
    """

    class Kind(models.TextChoices):
        DEPOSIT_DAY = "deposit_day", "Deposit limit per 24 hours"
        DEPOSIT_WEEK = "deposit_week", "Deposit limit per 7 days"
        DEPOSIT_MONTH = "deposit_month", "Deposit limit per 30 days"
        LOSS_DAY = "loss_day", "Loss limit per 24 hours"
        LOSS_WEEK = "loss_week", "Loss limit per 7 days"
        LOSS_MONTH = "loss_month", "Loss limit per 30 days"
        WAGER_DAY = "wager_day", "Wager limit per 24 hours"
        WAGER_WEEK = "wager_week", "Wager limit per 7 days"
        WAGER_MONTH = "wager_month", "Wager limit per 30 days"
        SESSION_MINUTES = "session_minutes", "Session time limit (minutes)"
        REALITY_CHECK_MINUTES = "reality_check_minutes", "Reality check every (minutes)"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="play_limits")
    kind = models.CharField(max_length=24, choices=Kind.choices)
    value = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    requested_at = models.DateTimeField()
    applies_at = models.DateTimeField()
    cancelled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["user", "kind", "-id"], condition=Q(cancelled_at__isnull=True), name="playlimit_live"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=PLAY_LIMIT_KINDS), name="playlimit_kind_known"),
            models.CheckConstraint(condition=Q(value__isnull=True) | Q(value__gt=0), name="playlimit_value_positive"),
            models.CheckConstraint(
                condition=Q(applies_at__gte=models.F("requested_at")), name="playlimit_applies_after_request"
            ),
            models.CheckConstraint(
                condition=~Q(kind="reality_check_minutes") | Q(value__isnull=True) | Q(value__in=[15, 30, 60]),
                name="playlimit_reality_check_interval",
            ),
        ]

    def __str__(self) -> str:
        value = "none" if self.value is None else self.value
        return f"{self.user} {self.kind} → {value} from {self.applies_at:%Y-%m-%d %H:%M} UTC"


class RealityCheckAnswer(models.Model):
    """A player answered their reality check ("Keep playing", ``POST /api/account/reality-check/``).

    A check is due once the player's interval (``reality_check_minutes``) has passed since the later of the
    session's start (their latest sign-in) and their latest answer; while it is due, bets are refused
    (``accounts.limits.play_limits_check_reality``). Rows are never changed: together they say when the player
    was reminded and carried on.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    answered_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["user", "-answered_at"], name="realitycheck_user_recent")]

    def __str__(self) -> str:
        return f"{self.user} answered the reality check at {self.answered_at:%Y-%m-%d %H:%M} UTC"
