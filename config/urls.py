from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.permissions import AllowAny

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
    path("payments/", include("market.payments.urls")),
    path("", include("market.urls")),
]

# JSON errors under /api/, the default pages elsewhere (market.api.errors).
handler404 = "market.api.errors.handler404"
handler500 = "market.api.errors.handler500"
