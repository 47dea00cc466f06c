"""A player's preferences: the language the casino speaks to them and whether the tables make sounds."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


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
