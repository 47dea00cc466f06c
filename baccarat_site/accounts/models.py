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
