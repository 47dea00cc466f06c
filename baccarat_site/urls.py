from django.contrib import admin
from django.http import HttpRequest, HttpResponse, HttpResponseServerError
from django.templatetags.static import static
from django.urls import include, path
from django.views import defaults
from django.views.generic import RedirectView
from django.views.i18n import JavaScriptCatalog

# The back office says whose it is (Django's default header reads "Django administration").
admin.site.site_header = "Baccarat casino: back office"
admin.site.site_title = "Back office"
admin.site.index_title = "Casino operations"

urlpatterns = [
    path("admin/floor/", include("tables.admin_floor")),
    path("admin/", admin.site.urls),
    path("api/", include("baccarat_site.api.urls")),
    path("accounts/", include("baccarat_site.accounts.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    # Strings written by the page scripts (locale/<lang>/LC_MESSAGES/djangojs.po), as gettext() in JS.
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("favicon.ico", RedirectView.as_view(url=static("casino/favicon.svg"), permanent=True)),
    path("", include("tables.urls")),
]


# Error pages: templates/404.html, 403.html and 403_csrf.html look like the site (Django's default handlers
# render them with the request); 500.html stands alone, rendered with no request, context or database.
def server_error(request: HttpRequest) -> HttpResponse:
    """templates/500.html; should even that fail, a plain page rather than nothing."""
    try:
        return defaults.server_error(request)
    except Exception:  # the last resort answers whatever broke
        return HttpResponseServerError(
            '<!doctype html><title>Server error (500)</title><h1>Server error (500)</h1><p><a href="/">Baccarat</a></p>'
        )


handler500 = server_error
