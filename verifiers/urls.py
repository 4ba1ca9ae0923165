"""Pages of the verifiers app (mounted under /docs/)."""

from django.urls import URLPattern, path

from verifiers import views

urlpatterns: list[URLPattern] = [
    path("verifiers/", views.verifier_docs, name="docs-verifiers"),
]
