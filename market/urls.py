"""Web pages (server-rendered, htmx for the live parts)."""

from django.urls import URLPattern, URLResolver

urlpatterns: list[URLPattern | URLResolver] = []
