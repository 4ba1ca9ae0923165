from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
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
        SpectacularSwaggerView.as_view(url_name="api-schema", permission_classes=[AllowAny]),
        name="api-docs",
    ),
    # Anything else under /api/ is a JSON 404, in DEBUG too (Django's debug 404 page is HTML).
    re_path(r"^api/", api_errors.api_not_found),
    path("payments/", include("market.payments.urls")),
    path("", include("activity.urls")),
    path("", include("market.urls")),
]

# JSON errors under /api/, the default pages elsewhere (market.api.errors).
handler404 = "market.api.errors.handler404"
handler500 = "market.api.errors.handler500"
