"""The guide for authors and solvers: the verifier contract, starters, the safe parser recipe.
Messages that name a repository path link here instead (``site_links``)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from market.starters import LEAN_VERIFIER_STARTER, PYTHON_VERIFIER_STARTER, starter_solution


def _safe_parser_recipe() -> str:
    """The recipe's source as the publishing checks know it; empty if it cannot be read."""
    try:
        from judge.python.static import RECIPE_PATH

        return RECIPE_PATH.read_text(encoding="utf-8")
    except Exception:  # the guide still renders; it says where the recipe went
        return ""


def verifiers_guide(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "market/help/verifiers.html",
        {
            "python_starter": PYTHON_VERIFIER_STARTER,
            "lean_starter": LEAN_VERIFIER_STARTER,
            "lean_solution_starter": starter_solution(LEAN_VERIFIER_STARTER),
            "safe_parser_recipe": _safe_parser_recipe(),
        },
    )
