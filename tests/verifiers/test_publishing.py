"""The publishing workflow through its services, with the real Python judge for dry runs."""

from __future__ import annotations

import hashlib
import pathlib

import pytest

from market.exceptions import InvalidProblem, NotFound, NotTradable, SubmissionsClosed
from market.models import Order, OrderStatus, ProblemStatus, Solution
from market.money import Currency, Money
from market.services.accounts import grant_demo_credits
from market.services.orders import place_ask, place_bid
from market.services.problems import create_problem, publish_problem, retire_problem, update_problem
from market.services.solutions import submit_solution
from market.services.verifier_authoring import (
    create_verifier,
    publish_verifier,
    retire_verifier,
    update_verifier,
)
from tests.factories import UserFactory, accepted_solution
from tests.verifiers.helpers import run_dry_run
from verifiers.drafts import draft_fingerprint
from verifiers.exceptions import InvalidVerifier, LeanUnavailable, NotEditable, PublishRefused
from verifiers.models import DryRun, VerifierStatus, VerifierVersion
from verifiers.services.publishing import publish_refusals

pytestmark = pytest.mark.django_db

REDTEAM = pathlib.Path(__file__).parents[1] / "redteam" / "publishing"

YES = '''"""Solution format: the word yes."""


def verify(solution, rng):
    return solution.strip() == "yes"
'''
YES_OR_OUI = YES.replace('solution.strip() == "yes"', 'solution.strip() in ("yes", "oui")')
BROKEN = """def verify(solution):
    return True
"""


@pytest.fixture
def author():
    return UserFactory(username="author")


@pytest.fixture
def draft(author):
    problem = create_problem(author=author, title="Say yes!", statement_md="Say **yes**.")
    verifier = create_verifier(
        author=author,
        problem=problem,
        language="python",
        source=YES,
        reference_solutions=["yes"],
        wrong_solutions=["no", ""],
    )
    return problem, verifier


def test_create_problem_is_a_draft_with_a_slug(author):
    problem = create_problem(author=author, title="Say yes!", statement_md="s")
    again = create_problem(author=author, title="Say yes!", statement_md="s")
    assert (problem.status, problem.slug, problem.currency) == ("draft", "say-yes", "DEMO")
    assert again.slug.startswith("say-yes-") and again.slug != problem.slug


def test_dry_run_judges_references_and_wrong_samples_with_the_real_judge(author, draft):
    _, verifier = draft
    dry_run = run_dry_run(author=author, verifier=verifier)
    assert dry_run.is_passed, dry_run.summary
    assert [(r["kind"], r["expected"], r["verdict"], r["is_ok"]) for r in dry_run.results] == [
        ("reference", "ACCEPTED", "ACCEPTED", True),
        ("wrong", "REJECTED", "REJECTED", True),
        ("wrong", "REJECTED", "REJECTED", True),
    ]
    assert dry_run.results[1]["reason"] == "WRONG_ANSWER"


def test_dry_run_fails_when_a_reference_is_rejected_or_a_wrong_sample_accepted(author, draft):
    _, verifier = draft
    update_verifier(
        author=author, verifier=verifier, reference_solutions=["no"], wrong_solutions=["yes"]
    )
    dry_run = run_dry_run(author=author, verifier=verifier)
    assert not dry_run.is_passed
    assert [r["is_ok"] for r in dry_run.results] == [False, False]
    assert "reference sample 1: expected ACCEPTED, got REJECTED" in dry_run.summary
    assert "wrong sample 1: expected REJECTED, got ACCEPTED" in dry_run.summary


def test_dry_run_reports_static_check_failures(author, draft):
    _, verifier = draft
    update_verifier(author=author, verifier=verifier, source=BROKEN)
    dry_run = run_dry_run(author=author, verifier=verifier)
    assert not dry_run.is_passed
    assert any("two positional parameters" in e for e in dry_run.static_errors)
    assert any("docstring" in e for e in dry_run.static_errors)
    assert "static checks failed" in dry_run.summary
    with pytest.raises(PublishRefused) as exc:
        publish_verifier(author=author, verifier=verifier)
    assert set(exc.value.fields) == {"source", "dry_run"}


def test_publish_needs_a_passing_dry_run_of_the_current_draft(author, draft):
    problem, verifier = draft
    with pytest.raises(PublishRefused) as exc:
        publish_verifier(author=author, verifier=verifier)
    assert exc.value.code == "verifiers:publish-refused"
    assert exc.value.fields == {"dry_run": ["run a dry run of the current draft"]}
    run_dry_run(author=author, verifier=verifier)
    update_verifier(author=author, verifier=verifier, time_limit_s=5.0)  # draft changed since
    with pytest.raises(PublishRefused):
        publish_verifier(author=author, verifier=verifier)
    problem.refresh_from_db()
    assert problem.status == ProblemStatus.DRAFT and VerifierVersion.objects.count() == 0


def test_publish_checks_statement_and_budget(author, settings):
    problem = create_problem(author=author, title="No statement")
    verifier = create_verifier(
        author=author,
        problem=problem,
        language="python",
        source=YES,
        reference_solutions=["yes"],
        time_limit_s=30.0,
    )
    run_dry_run(author=author, verifier=verifier)
    settings.JUDGE_PYTHON_MAX_TIME_S = 20.0  # the server cap went down after the dry run
    with pytest.raises(PublishRefused) as exc:
        publish_verifier(author=author, verifier=verifier)
    assert set(exc.value.fields) == {"statement_md", "time_limit_s"}
    with pytest.raises(InvalidVerifier) as exc:
        update_verifier(author=author, verifier=verifier, memory_limit_mb=4096)
    assert set(exc.value.fields) == {"memory_limit_mb", "time_limit_s"}


def test_publishing_freezes_a_version_and_publishes_the_problem(author, draft):
    problem, verifier = draft
    run_dry_run(author=author, verifier=verifier)
    version = publish_verifier(author=author, verifier=verifier)
    problem.refresh_from_db()
    verifier.refresh_from_db()
    assert problem.status == ProblemStatus.PUBLISHED and problem.published_at is not None
    assert verifier.status == VerifierStatus.PUBLISHED
    assert (version.number, version.is_active, version.source) == (1, True, YES)
    assert version.sha256 == hashlib.sha256(YES.encode()).hexdigest()
    assert version.solution_format == "Solution format: the word yes."
    assert publish_verifier(author=author, verifier=verifier) == version  # unchanged: no-op
    with pytest.raises(NotEditable):
        update_problem(author=author, problem=problem, statement_md="changed")


def test_editing_a_published_verifier_makes_a_new_version_and_old_solutions_keep_theirs(
    author, draft
):
    problem, verifier = draft
    run_dry_run(author=author, verifier=verifier)
    v1 = publish_verifier(author=author, verifier=verifier)
    seller = UserFactory(username="seller")
    solution = accepted_solution(verifier_version=v1, solver=seller, text="yes")
    ask = place_ask(seller=seller, solution=solution, price=Money(100, Currency.DEMO), quantity=3)

    update_verifier(
        author=author, verifier=verifier, source=YES_OR_OUI, reference_solutions=["yes", "oui"]
    )
    assert verifier.versions.get().source == YES  # the live version is untouched by editing
    run_dry_run(author=author, verifier=verifier)
    v2 = publish_verifier(author=author, verifier=verifier)

    v1.refresh_from_db()
    assert (v1.is_active, v2.is_active, v2.number) == (False, True, 2)
    assert v2.sha256 == hashlib.sha256(YES_OR_OUI.encode()).hexdigest() != v1.sha256
    solution.refresh_from_db()
    ask.refresh_from_db()
    assert solution.verifier_version_id == v1.pk and ask.status == OrderStatus.OPEN
    with pytest.raises(SubmissionsClosed):
        submit_solution(solver=seller, verifier_version=v1, text="oui")
    new = submit_solution(solver=seller, verifier_version=v2, text="oui")
    assert new.verifier_version_id == v2.pk


def test_retiring_stops_submissions_but_keeps_asks_and_entitlements(author, draft):
    problem, verifier = draft
    run_dry_run(author=author, verifier=verifier)
    version = publish_verifier(author=author, verifier=verifier)
    seller, buyer = UserFactory(username="seller"), UserFactory(username="buyer")
    grant_demo_credits(user=buyer, amount_minor=1_000)
    solution = accepted_solution(verifier_version=version, solver=seller, text="yes")
    ask = place_ask(seller=seller, solution=solution, price=Money(100, Currency.DEMO), quantity=3)
    place_bid(buyer=buyer, problem=problem, price=Money(100, Currency.DEMO), quantity=1)

    retire_verifier(author=author, verifier=verifier)
    version.refresh_from_db()
    assert version.is_active is False
    with pytest.raises(SubmissionsClosed):
        submit_solution(solver=buyer, verifier_version=version, text="yes")
    ask.refresh_from_db()
    assert ask.status == OrderStatus.OPEN and ask.remaining == 2
    assert buyer.entitlements.filter(solution=solution).exists()

    retire_problem(author=author, problem=problem)
    problem.refresh_from_db()
    assert problem.status == ProblemStatus.RETIRED
    assert Order.objects.get(pk=ask.pk).status == OrderStatus.OPEN
    assert buyer.entitlements.filter(solution=solution).exists()
    assert retire_problem(author=author, problem=problem).status == ProblemStatus.RETIRED
    with pytest.raises(NotEditable):
        publish_verifier(author=author, verifier=verifier)


def test_publish_problem_publishes_each_passing_draft_and_says_why_the_others_stay(author, draft):
    problem, verifier = draft
    second = create_verifier(
        author=author,
        problem=problem,
        name="second",
        language="python",
        source=YES,
        reference_solutions=["no"],
    )
    run_dry_run(author=author, verifier=second)  # fails: its reference is rejected
    with pytest.raises(PublishRefused) as exc:  # neither can be published: nothing changes
        publish_problem(author=author, problem=problem)
    assert sorted(exc.value.fields) == ["main.dry_run", "second.dry_run"]
    assert exc.value.fields["main.dry_run"] == ["run a dry run of the current draft"]
    assert VerifierVersion.objects.count() == 0
    problem.refresh_from_db()
    assert problem.status == ProblemStatus.DRAFT

    run_dry_run(author=author, verifier=verifier)
    publication = publish_problem(author=author, problem=problem)

    assert [v.verifier_id for v in publication.versions] == [verifier.pk]
    assert list(publication.still_drafts) == ["second"]
    assert publication.still_drafts["second"]["dry_run"][0].startswith("the last dry run failed")
    problem.refresh_from_db()
    second.refresh_from_db()
    assert (problem.status, second.status) == (ProblemStatus.PUBLISHED, VerifierStatus.DRAFT)
    assert publish_refusals(verifier=second) == publication.still_drafts["second"]


def test_publish_refusals_are_what_freeze_draft_refuses(author, draft):
    problem, verifier = draft
    assert publish_refusals(verifier=verifier) == {
        "dry_run": ["run a dry run of the current draft"]
    }
    with pytest.raises(PublishRefused) as exc:
        publish_verifier(author=author, verifier=verifier)
    assert exc.value.fields == {"dry_run": ["run a dry run of the current draft"]}
    run_dry_run(author=author, verifier=verifier)
    assert publish_refusals(verifier=verifier) == {}
    version = publish_verifier(author=author, verifier=verifier)
    verifier.refresh_from_db()
    assert publish_refusals(verifier=verifier) == {}  # the draft is the live version
    assert version.number == 1


def test_a_verifier_that_raised_on_a_sample_is_not_published(author):
    problem = create_problem(author=author, title="Three", statement_md="Say 3.")
    verifier = create_verifier(
        author=author,
        problem=problem,
        language="python",
        source=YES.replace('solution.strip() == "yes"', "int(solution) == 3"),
        reference_solutions=["3"],
        wrong_solutions=["abc"],
    )
    dry_run = run_dry_run(author=author, verifier=verifier)
    assert dry_run.is_passed is False
    with pytest.raises(PublishRefused) as exc:
        publish_verifier(author=author, verifier=verifier)
    assert list(exc.value.fields) == ["dry_run"]
    assert "the verifier raised" in exc.value.fields["dry_run"][0]
    problem.refresh_from_db()
    assert (problem.status, VerifierVersion.objects.count()) == (ProblemStatus.DRAFT, 0)


def test_lean_without_a_toolchain_cannot_pass_a_dry_run_or_publish(author, no_lean_toolchain):
    problem = create_problem(author=author, title="Two plus two", statement_md="Prove it.")
    verifier = create_verifier(
        author=author,
        problem=problem,
        language="lean",
        source="abbrev Spec : Prop := 2 + 2 = 4\n",
        reference_solutions=["import Verifier\ntheorem answer : Spec := by decide\n"],
    )
    assert verifier.lean_project == "core"
    dry_run = run_dry_run(author=author, verifier=verifier)
    assert not dry_run.is_passed
    assert "Lean judging is unavailable on this server" in dry_run.summary
    assert [r["verdict"] for r in dry_run.results] == ["NOT_RUN"]
    with pytest.raises(LeanUnavailable) as exc:
        publish_verifier(author=author, verifier=verifier)
    assert exc.value.code == "verifiers:lean-unavailable"
    assert "cannot be published" in exc.value.message
    problem.refresh_from_db()
    assert problem.status == ProblemStatus.DRAFT


def test_other_authors_get_not_found_and_nothing_changes(author, draft):
    problem, verifier = draft
    other = UserFactory(username="other")
    for call in (
        lambda: update_problem(author=other, problem=problem, title="x"),
        lambda: update_verifier(author=other, verifier=verifier, source="x"),
        lambda: run_dry_run(author=other, verifier=verifier),
        lambda: publish_verifier(author=other, verifier=verifier),
        lambda: publish_problem(author=other, problem=problem),
        lambda: retire_verifier(author=other, verifier=verifier),
        lambda: retire_problem(author=other, problem=problem),
        lambda: create_verifier(
            author=other, problem=problem, language="python", source=YES, name="mine"
        ),
    ):
        with pytest.raises(NotFound):
            call()
    problem.refresh_from_db()
    verifier.refresh_from_db()
    assert (problem.title, problem.status, verifier.draft_source) == ("Say yes!", "draft", YES)
    assert DryRun.objects.count() == 0 and verifier.problem.verifiers.count() == 1
    assert Solution.objects.count() == 0


def test_nul_characters_are_refused_as_invalid_input(author, draft):
    problem, verifier = draft
    with pytest.raises(InvalidProblem) as exc:
        create_problem(author=author, title="a\x00b")
    assert list(exc.value.fields) == ["title"]
    with pytest.raises(InvalidVerifier) as exc:
        update_verifier(author=author, verifier=verifier, source="x\x00", wrong_solutions=["\x00"])
    assert set(exc.value.fields) == {"source", "wrong_solutions"}
    verifier.refresh_from_db()
    assert verifier.draft_source == YES


def test_publishing_checks_the_source_afresh_whatever_the_dry_run_recorded(author, draft):
    # publish_refusals reads the static findings a finished dry run of this exact draft
    # recorded (the checks cost tens of milliseconds per verifier); freezing runs them again.
    problem, verifier = draft
    update_verifier(author=author, verifier=verifier, source=BROKEN)
    verifier.refresh_from_db()
    DryRun.objects.create(
        verifier=verifier,
        fingerprint=draft_fingerprint(verifier),
        status="done",
        is_passed=True,
        summary="passed (a record the checks would not have written)",
    )
    assert publish_refusals(verifier=verifier) == {}
    with pytest.raises(PublishRefused) as exc:
        publish_verifier(author=author, verifier=verifier)
    assert list(exc.value.fields) == ["source"]
    assert any("two positional parameters" in e for e in exc.value.fields["source"])
    problem.refresh_from_db()
    assert (problem.status, VerifierVersion.objects.count()) == (ProblemStatus.DRAFT, 0)


def test_a_by_name_forgery_is_refused_at_publishing_so_no_solution_is_ever_judged(author):
    # The outside reviewer's forgery: the solution's text, laundered through module state and
    # a property, picks sympy.primefactors by name. The run-time rule does not see a sink that
    # is not code (judged raw, it is ACCEPTED: tests/redteam), so publishing is the wall.
    source = (REDTEAM / "by_name" / "property_reads_module_state.py").read_text()
    problem = create_problem(
        author=author, title="Smallest factor", statement_md="Name a function."
    )
    verifier = create_verifier(
        author=author,
        problem=problem,
        language="python",
        source=source,
        reference_solutions=["primefactors"],
        wrong_solutions=["isprime"],
    )

    dry_run = run_dry_run(author=author, verifier=verifier)
    with pytest.raises(PublishRefused) as exc:
        publish_verifier(author=author, verifier=verifier)
    with pytest.raises(NotTradable):
        submit_solution(solver=UserFactory(), text="primefactors", verifier=verifier)

    assert dry_run.is_passed is False
    assert [r["verdict"] for r in dry_run.results] == ["NOT_RUN", "NOT_RUN"]  # never judged
    assert any(e.startswith("line 22: ") for e in dry_run.static_errors), dry_run.static_errors
    assert set(exc.value.fields) == {"source", "dry_run"}
    problem.refresh_from_db()
    assert problem.status == ProblemStatus.DRAFT
    assert VerifierVersion.objects.count() == 0
    assert Solution.objects.count() == 0
