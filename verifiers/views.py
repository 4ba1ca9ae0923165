"""Pages of the verifiers app: the guide for verifier authors."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from verifiers.guide import get_python_verifier_guide


def verifier_docs(request: HttpRequest) -> HttpResponse:
    """How to write a Python verifier: the contract, the library, what publishing allows."""
    return render(request, "verifiers/docs_verifiers.html", get_python_verifier_guide())
