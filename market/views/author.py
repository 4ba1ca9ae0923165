"""Author pages: new problem, edit a verifier, dry run (queued, polled), publish.

Each view calls one function of verifiers.services.publishing (the same path as the API);
domain errors come back as form errors.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from market import selectors
from market.access import access_own_problem
from market.exceptions import DomainError, NotFound
from market.models import Problem, ProblemStatus
from market.services import problems as problem_services
from market.services import verifier_authoring
from market.views.forms import ProblemForm, VerifierForm, join_samples
from market.views.ratelimit import write_rate_limited
from market.views.trading import add_domain_error
from verifiers import selectors as verifier_selectors
from verifiers.access import access_own_verifier
from verifiers.drafts import draft_fingerprint
from verifiers.models import DryRun, Verifier, VerifierStatus
from verifiers.services import dry_runs
from verifiers.services.publishing import PUBLISHING_RULE


def _own_problem(request: HttpRequest, problem_id: int) -> Problem:
    try:
        return access_own_problem(user=request.user, problem_id=problem_id)
    except NotFound:
        raise Http404("no such problem") from None


def _own_verifier(request: HttpRequest, verifier_id: int) -> Verifier:
    try:
        return access_own_verifier(user=request.user, verifier_id=verifier_id)
    except NotFound:
        raise Http404("no such verifier") from None


@login_required
def author_home(request: HttpRequest) -> HttpResponse:
    problems = selectors.list_author_problems(author=request.user)
    return render(request, "market/author/home.html", {"problems": problems})


@login_required
@write_rate_limited
def problem_new(request: HttpRequest) -> HttpResponse:
    form = ProblemForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            problem = problem_services.create_problem(author=request.user, **form.cleaned_data)
        except DomainError as error:
            add_domain_error(form, error, None)
        else:
            messages.success(request, "Draft problem created. Now add a verifier.")
            return redirect("author-verifier-new", problem_id=problem.pk)
    return render(request, "market/author/problem_new.html", {"form": form})


def _problem_page(
    request: HttpRequest, problem: Problem, form: ProblemForm, status: int = 200
) -> HttpResponse:
    context: dict[str, Any] = {
        "problem": problem,
        "form": form,
        "publishing_rule": PUBLISHING_RULE,
        "is_draft": problem.status == ProblemStatus.DRAFT,
        "verifiers": verifier_selectors.list_author_verifiers(problem_id=problem.pk),
    }
    return render(request, "market/author/problem_edit.html", context, status=status)


@login_required
@write_rate_limited
def problem_edit(request: HttpRequest, problem_id: int) -> HttpResponse:
    problem = _own_problem(request, problem_id)
    initial = {
        "title": problem.title,
        "statement_md": problem.statement_md,
        "currency": problem.currency,
    }
    if request.method != "POST":
        return _problem_page(request, problem, ProblemForm(initial=initial))
    form = ProblemForm(request.POST, initial=initial)
    if form.is_valid():
        try:
            problem_services.update_problem(
                author=request.user, problem=problem, **form.cleaned_data
            )
        except DomainError as error:
            add_domain_error(form, error, None)
        else:
            messages.success(request, "Problem saved.")
            return redirect("author-problem", problem_id=problem.pk)
    return _problem_page(request, problem, form, status=400)


@login_required
@require_POST
@write_rate_limited
def problem_publish(request: HttpRequest, problem_id: int) -> HttpResponse:
    problem = _own_problem(request, problem_id)
    try:
        publication = problem_services.publish_problem(author=request.user, problem=problem)
    except DomainError as error:
        messages.error(request, _error_text(error))
        return redirect("author-problem", problem_id=problem.pk)
    names = ", ".join(version.verifier.name for version in publication.versions)
    messages.success(request, f"Published with {names}: the problem is listed and takes solutions.")
    for name, reasons in publication.still_drafts.items():
        why = "; ".join(reason for field in reasons.values() for reason in field)
        messages.warning(request, f"Verifier {name} stays a private draft: {why}")
    return redirect("problem-detail", slug=problem.slug)


def _verifier_initial(verifier: Verifier) -> dict[str, Any]:
    return {
        "name": verifier.name,
        "language": verifier.language,
        "source": verifier.draft_source,
        "time_limit_s": verifier.time_limit_s,
        "memory_limit_mb": verifier.memory_limit_mb,
        "lean_project": verifier.lean_project,
        "is_source_public": verifier.is_source_public,
        "reference_solutions": join_samples(verifier.reference_solutions),
        "wrong_solutions": join_samples(verifier.wrong_solutions),
    }


@login_required
@write_rate_limited
def verifier_new(request: HttpRequest, problem_id: int) -> HttpResponse:
    problem = _own_problem(request, problem_id)
    form = VerifierForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            verifier = verifier_authoring.create_verifier(
                author=request.user, problem=problem, **form.service_kwargs()
            )
        except DomainError as error:
            add_domain_error(form, error, None)
        else:
            messages.success(request, "Verifier saved as a draft. Run a dry run next.")
            return redirect("author-verifier", verifier_id=verifier.pk)
    return render(
        request,
        "market/author/verifier_edit.html",
        {"problem": problem, "verifier": None, "form": form},
        status=400 if request.method == "POST" else 200,
    )


# How often the page re-fetches a dry run that is still queued or running.
DRY_RUN_POLL_S = 1


def _dry_run_context(verifier: Verifier) -> dict[str, Any]:
    dry_run = verifier_selectors.get_latest_dry_run(verifier=verifier)
    return {
        "verifier": verifier,
        "dry_run": dry_run,
        "dry_run_is_current": dry_run is not None
        and dry_run.fingerprint == draft_fingerprint(verifier),
        "poll_s": DRY_RUN_POLL_S if dry_run is not None and not dry_run.is_finished else None,
        # When no sample ran (the draft does not compile, the static checks refused it, no
        # Lean here), one line says why instead of a row per sample repeating it.
        "not_run_detail": _not_run_detail(dry_run),
    }


def _not_run_detail(dry_run: DryRun | None) -> str:
    results = dry_run.results if dry_run is not None else []
    if results and all(result.get("verdict") == "NOT_RUN" for result in results):
        return str(results[0].get("detail") or "").removeprefix("not judged: ")
    return ""


def _publish_context(verifier: Verifier) -> dict[str, Any]:
    """The publish panel: the rule and what publishing now would refuse (the service's words)."""
    refusals = selectors.get_publish_refusals(verifier=verifier)
    return {
        "publishing_rule": PUBLISHING_RULE,
        "publish_refusals": refusals,
        "draft_is_live": not refusals and verifier.status != VerifierStatus.DRAFT,
    }


def _verifier_page(
    request: HttpRequest, verifier: Verifier, form: VerifierForm, status: int = 200
) -> HttpResponse:
    context = {
        "problem": verifier.problem,
        "form": form,
        "versions": verifier.versions.order_by("-number"),
        **_dry_run_context(verifier),
        **_publish_context(verifier),
    }
    return render(request, "market/author/verifier_edit.html", context, status=status)


@login_required
def verifier_dry_run_panel(request: HttpRequest, verifier_id: int) -> HttpResponse:
    """The dry-run panel alone: what the page polls while a dry run is queued or running.

    Once the dry run has finished, the publish panel rides along out of band (hx-swap-oob),
    so it stops saying a dry run is needed the moment one passed."""
    verifier = _own_verifier(request, verifier_id)
    context = _dry_run_context(verifier)
    if context["poll_s"] is None:
        context.update(_publish_context(verifier), publish_oob=True)
    response = render(request, "market/author/_dry_run.html", context)
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@write_rate_limited
def verifier_edit(request: HttpRequest, verifier_id: int) -> HttpResponse:
    verifier = _own_verifier(request, verifier_id)
    if request.method != "POST":
        return _verifier_page(request, verifier, VerifierForm(initial=_verifier_initial(verifier)))
    form = VerifierForm(request.POST)
    if form.is_valid():
        try:
            verifier_authoring.update_verifier(
                author=request.user, verifier=verifier, **form.service_kwargs()
            )
        except DomainError as error:
            add_domain_error(form, error, None)
        else:
            messages.success(request, "Draft saved. Run a dry run of this draft before publishing.")
            return redirect("author-verifier", verifier_id=verifier.pk)
    return _verifier_page(request, verifier, form, status=400)


@login_required
@require_POST
@write_rate_limited
def verifier_dry_run(request: HttpRequest, verifier_id: int) -> HttpResponse:
    verifier = _own_verifier(request, verifier_id)
    try:
        dry_runs.request_dry_run(author=request.user, verifier=verifier)
    except DomainError as error:
        messages.error(request, _error_text(error))
    # No "queued" flash: it would stay on the page after the dry run finished. The panel
    # itself says queued, running, then the result (a polite live region).
    return redirect(reverse("author-verifier", kwargs={"verifier_id": verifier.pk}) + "#dry-run")


@login_required
@require_POST
@write_rate_limited
def verifier_publish(request: HttpRequest, verifier_id: int) -> HttpResponse:
    verifier = _own_verifier(request, verifier_id)
    try:
        version = verifier_authoring.publish_verifier(author=request.user, verifier=verifier)
    except DomainError as error:
        messages.error(request, _error_text(error))
        return redirect("author-verifier", verifier_id=verifier.pk)
    messages.success(
        request, f"Published version {version.number}: the problem is listed and takes solutions."
    )
    return redirect("problem-detail", slug=verifier.problem.slug)


def _error_text(error: DomainError) -> str:
    details = "; ".join(
        f"{field}: {', '.join(problems)}" for field, problems in error.fields.items()
    )
    return f"{error.message}" + (f" ({details})" if details else "")
