"""Activity pages."""

from django.urls import URLPattern, path

from activity import views

urlpatterns: list[URLPattern] = [
    path("activity/", views.activity_page, name="activity"),
    path("activity/badge/", views.badge, name="activity-badge"),
    path("activity/read/", views.mark_all_read, name="activity-read"),
    path("account/tokens/", views.tokens_page, name="api-tokens"),
]
