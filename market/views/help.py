"""The guide for authors and solvers: the verifier contract, starters, the verifier library.
Messages that name a repository path link here instead (``site_links``)."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

from market.starters import LEAN_VERIFIER_STARTER, PYTHON_VERIFIER_STARTER, starter_solution


def verifiers_guide(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "market/help/verifiers.html",
        {
            "python_starter": PYTHON_VERIFIER_STARTER,
            "lean_starter": LEAN_VERIFIER_STARTER,
            "lean_solution_starter": starter_solution(LEAN_VERIFIER_STARTER),
        },
    )


@require_safe
@cache_control(max_age=86400, public=True)
def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``: browsers ask for it on every page, JSON ones included (a 404 there
    fills the console). An SVG icon, which browsers take from this path by its type."""
    icon = Path(settings.BASE_DIR) / "static" / "favicon.svg"
    return HttpResponse(icon.read_bytes(), content_type="image/svg+xml")
