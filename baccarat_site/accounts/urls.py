"""/accounts/: Django's own auth views where they fit, the project's for sign-up, profile and refill."""

from django.contrib.auth import views as auth_views
from django.urls import path

from baccarat_site.accounts import views

urlpatterns = [
    path("login/", views.login_view, name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("signup/", views.signup, name="signup"),
    path("profile/", views.profile, name="profile"),
    path("refill/", views.refill, name="refill"),
    path("limits/", views.limits, name="account-limits"),
    path("break/", views.take_break, name="take-break"),
    path("session/", views.session_totals, name="session-totals"),
    path("token/revoke/", views.token_revoke, name="token-revoke"),
    path("password/", views.password_change, name="password_change"),
    path("password/done/", views.password_change_done, name="password_change_done"),
    path("language/", views.set_language, name="account-language"),
    path("sound/", views.sound, name="account-sound"),
]
