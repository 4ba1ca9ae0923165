"""/api/v1/activity/ and /api/v1/webhooks/ (included by market.api.urls, namespace ``api``)."""

from django.urls import URLPattern, path

from activity.api import views

urlpatterns: list[URLPattern] = [
    path("activity/", views.ActivityView.as_view(), name="activity"),
    path("activity/read/", views.ActivityReadView.as_view(), name="activity-read"),
    path("webhooks/", views.WebhookListView.as_view(), name="webhook-list"),
    path("webhooks/<id:pk>/", views.WebhookDetailView.as_view(), name="webhook-detail"),
    path(
        "webhooks/<id:pk>/deliveries/",
        views.WebhookDeliveryListView.as_view(),
        name="webhook-deliveries",
    ),
]
