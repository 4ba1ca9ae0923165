from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.permissions import AllowAny

from market.api import errors as api_errors

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("market.api.urls")),
    path(
        "api/schema/", SpectacularAPIView.as_view(permission_classes=[AllowAny]), name="api-schema"
    ),
    path(
        "api/docs/",
        # The split view loads its start-up script from a URL: no inline script (CSP).
        SpectacularSwaggerSplitView.as_view(
            url_name="api-schema",
            permission_classes=[AllowAny],
            template_name="api_docs/swagger_ui.html",
        ),
        name="api-docs",
    ),
    # Anything else under /api/ is a JSON 404, in DEBUG too (Django's debug 404 page is HTML).
    re_path(r"^api/", api_errors.api_not_found),
    path("payments/", include("market.payments.urls")),
    path("docs/", include("verifiers.urls")),
    path("", include("activity.urls")),
    path("", include("market.urls")),
]

# JSON errors under /api/, product pages elsewhere, for every status (market.views.errors).
handler400 = "market.views.errors.bad_request"
handler403 = "market.views.errors.permission_denied"
handler404 = "market.views.errors.page_not_found"
handler500 = "market.views.errors.server_error"
