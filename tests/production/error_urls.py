"""The site's URLs plus views that fail on purpose (test_error_answers)."""

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.urls import path

from config import urls as site_urls


def boom(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("secret-detail-that-must-not-leak")


def forbidden(request: HttpRequest) -> HttpResponse:
    raise PermissionDenied("secret-reason-that-must-not-leak")


urlpatterns = [
    path("boom/", boom),
    path("forbidden/", forbidden),
    path("api/v1/boom/", boom),
    path("api/v1/forbidden/", forbidden),
    *site_urls.urlpatterns,
]
handler400 = site_urls.handler400
handler403 = site_urls.handler403
handler404 = site_urls.handler404
handler500 = site_urls.handler500
