"""Author pages: each calls the publishing workflow; refusals come back as messages or form
errors and change nothing."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from market.models import Problem, ProblemStatus
from tests.factories import UserFactory
from verifiers.models import DryRun, Verifier, VerifierVersion
from verifiers.services.dry_runs import perform_dry_run

pytestmark = pytest.mark.django_db

VERIFIER = '''"""Solution format: the word yes."""


def verify(solution, rng):
    return solution.strip() == "yes"
'''


def author_client() -> tuple[Client, object]:
    user = UserFactory()
    client = Client()
    client.force_login(user)
    return client, user


def new_problem(client: Client, title: str = "Say yes") -> Problem:
    response = client.post(
        reverse("author-problem-new"),
        {"title": title, "statement_md": "Say **yes**.", "currency": "DEMO"},
    )
    assert response.status_code == 302
    return Problem.objects.get(title=title)


def verifier_fields(**overrides: str) -> dict[str, str]:
    fields = {
        "name": "main",
        "language": "python",
        "source": VERIFIER,
        "time_limit_s": "5",
        "memory_limit_mb": "256",
        "lean_project": "",
        "reference_solutions": "yes",
        "wrong_solutions": "no\n---\nmaybe",
    }
    fields.update(overrides)
    return fields


def test_new_problem_is_a_draft_that_is_not_listed():
    client, author = author_client()
    problem = new_problem(client)
    assert (problem.author_id, problem.status) == (author.pk, ProblemStatus.DRAFT)
    assert "Say yes" not in Client().get(reverse("problem-list")).content.decode()
    assert Client().get(reverse("problem-detail", args=[problem.slug])).status_code == 404


def test_verifier_form_splits_samples_and_dry_run_then_publish_lists_the_problem():
    client, _ = author_client()
    problem = new_problem(client)
    client.post(reverse("author-verifier-new", args=[problem.pk]), verifier_fields())
    verifier = Verifier.objects.get(problem=problem)
    assert (verifier.reference_solutions, verifier.wrong_solutions) == (
        ["yes\n"],
        ["no\n", "maybe\n"],
    )

    client.post(reverse("author-verifier-dry-run", args=[verifier.pk]))
    dry_run = DryRun.objects.get(verifier=verifier)
    # The web only queued it: the page shows it waiting and polls the panel.
    page = client.get(reverse("author-verifier", args=[verifier.pk])).content.decode()
    assert 'id="dry-run-result">queued<' in page
    # The problem's verifier list says queued too (it used to say "failed" until it ran).
    listing = client.get(reverse("author-problem", args=[problem.pk])).content.decode()
    assert '<span class="badge pending">queued</span>' in listing and "failed" not in listing
    assert (
        "<li>the dry run of this draft has not finished yet: publish when it has passed</li>"
        in (page)
    )
    panel_url = reverse("author-verifier-dry-run-panel", args=[verifier.pk])
    assert f'hx-get="{panel_url}" hx-trigger="every 1s"' in page
    waiting = client.get(panel_url).content.decode()
    assert 'id="publish-panel"' not in waiting  # no publish panel while it still polls
    perform_dry_run(dry_run_id=dry_run.pk)  # what the judge worker's task does
    dry_run.refresh_from_db()
    assert dry_run.is_passed is True
    panel = client.get(panel_url).content.decode()
    assert 'id="dry-run-result">passed<' in panel and "hx-trigger" not in panel
    # The last poll also refreshes the publish panel, out of band: it no longer asks for one.
    assert (
        '<section class="card" id="publish-panel" aria-labelledby="publish-h" hx-swap-oob="true">'
        in (panel)
    )
    assert "Ready: the dry run of this draft passed." in panel and "publish-why" not in panel
    page = client.get(reverse("author-verifier", args=[verifier.pk])).content.decode()
    assert 'id="dry-run-result">passed<' in page

    response = client.post(reverse("author-verifier-publish", args=[verifier.pk]))
    assert response["Location"] == reverse("problem-detail", args=[problem.slug])
    problem.refresh_from_db()
    assert problem.status == ProblemStatus.PUBLISHED
    assert VerifierVersion.objects.get(verifier=verifier).number == 1
    assert "Say yes" in Client().get(reverse("problem-list")).content.decode()


def test_publish_without_a_dry_run_is_refused_with_the_reason_and_changes_nothing():
    client, _ = author_client()
    problem = new_problem(client)
    client.post(reverse("author-verifier-new", args=[problem.pk]), verifier_fields())
    verifier = Verifier.objects.get(problem=problem)
    response = client.post(reverse("author-verifier-publish", args=[verifier.pk]), follow=True)
    assert "run a dry run of the current draft" in response.content.decode()
    problem.refresh_from_db()
    assert problem.status == ProblemStatus.DRAFT
    assert not VerifierVersion.objects.exists()


def test_failing_dry_run_shows_which_sample_was_misjudged():
    client, _ = author_client()
    problem = new_problem(client)
    client.post(
        reverse("author-verifier-new", args=[problem.pk]),
        verifier_fields(wrong_solutions="yes"),
    )
    verifier = Verifier.objects.get(problem=problem)
    client.post(reverse("author-verifier-dry-run", args=[verifier.pk]))
    perform_dry_run(dry_run_id=DryRun.objects.get(verifier=verifier).pk)
    html = client.get(reverse("author-verifier", args=[verifier.pk])).content.decode()
    assert 'id="dry-run-result">failed<' in html
    assert "wrong sample 1: expected REJECTED, got ACCEPTED" in html


def test_a_verifier_that_does_not_compile_shows_one_red_error_and_no_green_row():
    client, _ = author_client()
    problem = new_problem(client)
    client.post(
        reverse("author-verifier-new", args=[problem.pk]),
        verifier_fields(source='"""x"""\ndef verify(solution, rng)\n    return True\n'),
    )
    verifier = Verifier.objects.get(problem=problem)
    client.post(reverse("author-verifier-dry-run", args=[verifier.pk]))
    perform_dry_run(dry_run_id=DryRun.objects.get(verifier=verifier).pk)
    html = client.get(reverse("author-verifier", args=[verifier.pk])).content.decode()
    assert html.count("the verifier does not compile: expected &#x27;:&#x27; (line 2)") == 2
    assert 'class="badge accepted"' not in html  # no sample looks as expected
    # One line instead of a row per sample repeating the same reason.
    assert (
        '<p class="help" id="dry-run-not-run">None of the 3 samples was judged: the verifier '
        "does not compile (see the error above)</p>"
    ) in html
    assert "<tbody" not in html.split('id="dry-run-panel"')[1].split('id="publish-panel"')[0]


def test_publish_problem_lists_it_with_the_passing_verifier_and_says_why_the_other_waits():
    client, _ = author_client()
    problem = new_problem(client)
    client.post(reverse("author-verifier-new", args=[problem.pk]), verifier_fields())
    client.post(
        reverse("author-verifier-new", args=[problem.pk]),
        verifier_fields(name="strict", wrong_solutions="yes"),
    )
    passing, failing = Verifier.objects.filter(problem=problem).order_by("id")
    for verifier in (passing, failing):
        client.post(reverse("author-verifier-dry-run", args=[verifier.pk]))
        perform_dry_run(dry_run_id=DryRun.objects.get(verifier=verifier).pk)
    edit = client.get(reverse("author-problem", args=[problem.pk])).content.decode()
    assert "A verifier is published on its own, once the last dry run" in edit

    response = client.post(reverse("author-problem-publish", args=[problem.pk]), follow=True)

    html = response.content.decode()
    assert "Published with main: the problem is listed and takes solutions." in html
    assert "Verifier strict stays a private draft: the last dry run failed: wrong sample 1" in html
    failing.refresh_from_db()
    assert (failing.status, failing.versions.count()) == ("draft", 0)
    problem.refresh_from_db()
    assert problem.status == ProblemStatus.PUBLISHED


def test_invalid_budget_is_a_form_error_and_stores_nothing():
    client, _ = author_client()
    problem = new_problem(client)
    response = client.post(
        reverse("author-verifier-new", args=[problem.pk]), verifier_fields(time_limit_s="100000")
    )
    assert response.status_code == 400
    assert "must be in [0.05, 60] seconds" in response.content.decode()
    assert not Verifier.objects.exists()


def test_someone_elses_problem_and_verifier_are_not_found():
    owner_client, _ = author_client()
    problem = new_problem(owner_client)
    owner_client.post(reverse("author-verifier-new", args=[problem.pk]), verifier_fields())
    verifier = Verifier.objects.get(problem=problem)
    intruder, _ = author_client()
    assert intruder.get(reverse("author-problem", args=[problem.pk])).status_code == 404
    assert intruder.get(reverse("author-verifier", args=[verifier.pk])).status_code == 404
    assert intruder.post(reverse("author-verifier-publish", args=[verifier.pk])).status_code == 404
    assert intruder.post(reverse("author-verifier-dry-run", args=[verifier.pk])).status_code == 404
    assert not DryRun.objects.exists()
