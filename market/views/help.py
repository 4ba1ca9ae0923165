"""The guide for authors and solvers: the verifier contract, starters, the verifier library.
Messages that name a repository path link here instead (``site_links``)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

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
