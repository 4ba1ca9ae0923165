"""The author workflow through the API: draft → dry run → publish → edit → v2 → retire."""

from __future__ import annotations

import pytest

from market.models import Problem, ProblemStatus
from tests.api.conftest import assert_error
from tests.api.dry_runs import judge_requested_dry_run
from verifiers.models import DryRun, Verifier, VerifierStatus, VerifierVersion

pytestmark = pytest.mark.django_db

YES = (
    '"""Solution format: the word yes."""\n\n\n'
    'def verify(solution, rng):\n    return solution.strip() == "yes"\n'
)


def test_the_whole_author_loop(world):
    client = world.client("other_author")
    created = client.post(
        "/api/v1/author/problems/",
        {"title": "Say yes", "statement_md": "Say yes.", "currency": "DEMO"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="new-problem",
    )
    assert created.status_code == 201, created.content
    problem_id = created.json()["id"]
    assert created.json()["status"] == "draft"
    replay = client.post(
        "/api/v1/author/problems/",
        {"title": "Say yes", "statement_md": "Say yes.", "currency": "DEMO"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="new-problem",
    )
    assert replay.json()["id"] == problem_id
    assert Problem.objects.filter(author=world.other_author).count() == 1

    edited = client.patch(
        f"/api/v1/author/problems/{problem_id}/", {"statement_md": "Say **yes**."}, "json"
    )
    assert edited.status_code == 200 and edited.json()["statement_md"] == "Say **yes**."

    verifier = client.post(
        f"/api/v1/author/problems/{problem_id}/verifiers/",
        {
            "language": "python",
            "source": YES,
            "reference_solutions": ["yes"],
            "wrong_solutions": ["no"],
            "time_limit_s": 5,
            "memory_limit_mb": 128,
        },
        format="json",
    )
    assert verifier.status_code == 201, verifier.content
    verifier_id = verifier.json()["id"]
    assert verifier.json()["status"] == "draft" and verifier.json()["latest_dry_run"] is None

    # The verifier says in advance what publishing would refuse, in the 409's own words.
    assert verifier.json()["publish_refusals"] == {
        "dry_run": ["run a dry run of the current draft"]
    }
    refused = client.post(f"/api/v1/author/verifiers/{verifier_id}/publish/")
    error = assert_error(refused, 409, "verifiers:publish-refused")
    assert error["fields"] == {"dry_run": ["run a dry run of the current draft"]}

    requested = client.post(f"/api/v1/author/verifiers/{verifier_id}/dry-runs/")
    assert requested.status_code == 202, requested.content
    assert (requested.json()["is_passed"], requested.json()["results"]) == (False, [])
    # Publishing never waits for the worker: a dry run still queued does not count yet.
    early = client.post(f"/api/v1/author/verifiers/{verifier_id}/publish/")
    error = assert_error(early, 409, "verifiers:publish-refused")
    assert error["fields"] == {
        "dry_run": ["the dry run of this draft has not finished yet: publish when it has passed"]
    }
    # Asking again while it waits returns the same dry run.
    again = client.post(f"/api/v1/author/verifiers/{verifier_id}/dry-runs/")
    assert again.json()["id"] == requested.json()["id"]
    dry_run = judge_requested_dry_run(client, requested)
    assert dry_run["is_passed"] is True and dry_run["is_current"] is True
    assert [r["verdict"] for r in dry_run["results"]] == ["ACCEPTED", "REJECTED"]
    ready = client.get(f"/api/v1/author/verifiers/{verifier_id}/").json()
    assert ready["publish_refusals"] == {}

    published = client.post(f"/api/v1/author/verifiers/{verifier_id}/publish/")
    assert published.status_code == 201, published.content
    assert published.json()["number"] == 1
    assert client.get(f"/api/v1/author/problems/{problem_id}/").json()["status"] == "published"
    public = world.client("anonymous").get(f"/api/v1/problems/{problem_id}/").json()
    assert public["verifiers"][0]["active_version"]["solution_format"] == (
        "Solution format: the word yes."
    )

    assert_error(
        client.patch(f"/api/v1/author/problems/{problem_id}/", {"title": "x"}, "json"),
        409,
        "verifiers:not-editable",
    )
    client.patch(f"/api/v1/author/verifiers/{verifier_id}/", {"time_limit_s": 3}, "json")
    stale = client.get(f"/api/v1/author/verifiers/{verifier_id}/").json()["latest_dry_run"]
    assert stale["is_current"] is False
    judge_requested_dry_run(
        client, client.post(f"/api/v1/author/verifiers/{verifier_id}/dry-runs/")
    )
    v2 = client.post(f"/api/v1/author/verifiers/{verifier_id}/publish/")
    assert v2.status_code == 201 and v2.json()["number"] == 2
    versions = VerifierVersion.objects.filter(verifier_id=verifier_id).order_by("number")
    assert [(v.number, v.is_active, v.time_limit_s) for v in versions] == [
        (1, False, 5.0),
        (2, True, 3.0),
    ]

    retired = client.post(f"/api/v1/author/problems/{problem_id}/retire/")
    assert retired.status_code == 200 and retired.json()["status"] == "retired"
    assert not VerifierVersion.objects.filter(verifier_id=verifier_id, is_active=True).exists()
    submit = world.client("solver").post(
        "/api/v1/solutions/", {"verifier": verifier_id, "text": "yes"}, "json"
    )
    assert_error(submit, 409, "market:not-tradable")


def test_author_input_refusals_change_nothing(world):
    client = world.client("author")
    count = (Problem.objects.count(), Verifier.objects.count(), DryRun.objects.count())
    assert_error(client.post("/api/v1/author/problems/", {"title": ""}, "json"), 400, "api:invalid")
    assert_error(
        client.post("/api/v1/author/problems/", {"title": "x", "currency": "EUR"}, "json"),
        400,
        "api:invalid",
    )
    draft = client.post("/api/v1/author/problems/", {"title": "Draft"}, "json").json()
    url = f"/api/v1/author/problems/{draft['id']}/verifiers/"
    error = assert_error(
        client.post(url, {"language": "python", "source": YES, "time_limit_s": 600}, "json"),
        400,
        "verifiers:invalid",
    )
    assert list(error["fields"]) == ["time_limit_s"]
    assert_error(client.post(url, {"language": "cobol", "source": YES}, "json"), 400, "api:invalid")
    assert_error(
        client.post(
            url, {"language": "python", "source": YES, "reference_solutions": "yes"}, "json"
        ),
        400,
        "api:invalid",
    )
    assert_error(
        client.post(f"/api/v1/author/problems/{draft['id']}/publish/"),
        409,
        "verifiers:publish-refused",
    )
    assert (Problem.objects.count() - 1, Verifier.objects.count(), DryRun.objects.count()) == count
    assert Problem.objects.get(pk=draft["id"]).status == ProblemStatus.DRAFT


def test_lean_dry_run_through_the_api_says_lean_is_unavailable(world, no_lean_toolchain):
    client = world.client("author")
    draft = client.post(
        "/api/v1/author/problems/", {"title": "2+2", "statement_md": "s"}, "json"
    ).json()
    verifier = client.post(
        f"/api/v1/author/problems/{draft['id']}/verifiers/",
        {
            "language": "lean",
            "source": "abbrev Spec : Prop := 2 + 2 = 4\n",
            "reference_solutions": ["import Verifier\ntheorem answer : Spec := by decide\n"],
        },
        "json",
    ).json()
    dry_run = judge_requested_dry_run(
        client, client.post(f"/api/v1/author/verifiers/{verifier['id']}/dry-runs/")
    )
    assert dry_run["is_passed"] is False
    assert "Lean judging is unavailable on this server" in dry_run["summary"]
    refused = client.post(f"/api/v1/author/verifiers/{verifier['id']}/publish/")
    error = assert_error(refused, 409, "verifiers:lean-unavailable")
    assert "Lean" in error["message"]


def test_a_dry_run_is_visible_to_its_author_only(world):
    author = world.client("author")
    requested = author.post(f"/api/v1/author/verifiers/{world.verifier.pk}/dry-runs/")
    assert requested.status_code == 202, requested.content
    url = requested.json()["url"]
    assert author.get(url).json()["status"] == "pending"
    assert_error(world.client("solver").get(url), 404, "not-found")
    assert_error(world.client("anonymous").get(url), 401, "api:not-authenticated")
    assert_error(author.get("/api/v1/author/dry-runs/999999999/"), 404, "not-found")


def test_the_schema_documents_the_202_with_the_dry_runs_url():
    from drf_spectacular.generators import SchemaGenerator

    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    queued = paths["/api/v1/author/verifiers/{id}/dry-runs/"]["post"]["responses"]
    assert set(queued["202"]["headers"]) == {"Location"}
    assert "201" not in queued
    poll = paths["/api/v1/author/dry-runs/{id}/"]["get"]["responses"]["200"]
    assert poll["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/DryRun"}


def test_a_draft_cannot_be_retired_into_public_view(world):
    # Before: retiring a draft problem made it (and its draft verifiers) "retired", which is
    # public: anyone could read a problem that was never published.
    author = world.client("author")
    problem = author.post(
        "/api/v1/author/problems/",
        {"title": "Secret draft", "statement_md": "unpublished", "currency": "DEMO"},
        format="json",
    ).json()
    verifier = author.post(
        f"/api/v1/author/problems/{problem['id']}/verifiers/",
        {"language": "python", "source": "def verify(solution, rng):\n    return True\n"},
        format="json",
    ).json()

    refused = author.post(f"/api/v1/author/problems/{problem['id']}/retire/")
    refused_verifier = author.post(f"/api/v1/author/verifiers/{verifier['id']}/retire/")

    assert_error(refused, 409, "verifiers:not-editable")
    assert_error(refused_verifier, 409, "verifiers:not-editable")
    assert Problem.objects.get(pk=problem["id"]).status == ProblemStatus.DRAFT
    assert Verifier.objects.get(pk=verifier["id"]).status == VerifierStatus.DRAFT
    for persona in ("anonymous", "solver", "other_author"):
        client = world.client(persona)
        assert_error(client.get(f"/api/v1/problems/{problem['id']}/"), 404, "not-found")
        assert_error(client.get(f"/api/v1/verifiers/{verifier['id']}/"), 404, "not-found")


def test_retiring_a_published_problem_keeps_its_draft_verifiers_private(world):
    author = world.client("author")
    draft = author.post(
        f"/api/v1/author/problems/{world.problem.pk}/verifiers/",
        {"name": "v-next", "language": "python", "source": "def verify(s, rng):\n    pass\n"},
        format="json",
    ).json()

    retired = author.post(f"/api/v1/author/problems/{world.problem.pk}/retire/")

    assert retired.status_code == 200 and retired.json()["status"] == "retired"
    assert Verifier.objects.get(pk=draft["id"]).status == VerifierStatus.DRAFT
    assert Verifier.objects.get(pk=world.verifier.pk).status == VerifierStatus.RETIRED
    stranger = world.client("solver")
    assert_error(stranger.get(f"/api/v1/verifiers/{draft['id']}/"), 404, "not-found")
    assert stranger.get(f"/api/v1/verifiers/{world.verifier.pk}/").status_code == 200


def test_publish_problem_publishes_the_passing_verifier_and_the_other_says_why_it_waits(world):
    client = world.client("other_author")
    problem = client.post(
        "/api/v1/author/problems/", {"title": "Two rules", "statement_md": "Say yes."}, "json"
    ).json()
    ids = []
    for name, wrong in (("main", "no"), ("lax", "yes")):  # lax: its wrong sample is accepted
        verifier = client.post(
            f"/api/v1/author/problems/{problem['id']}/verifiers/",
            {
                "name": name,
                "language": "python",
                "source": YES,
                "reference_solutions": ["yes"],
                "wrong_solutions": [wrong],
            },
            "json",
        ).json()
        ids.append(verifier["id"])
    refused = client.post(f"/api/v1/author/problems/{problem['id']}/publish/")
    error = assert_error(refused, 409, "verifiers:publish-refused")
    assert error["fields"] == {
        "main.dry_run": ["run a dry run of the current draft"],
        "lax.dry_run": ["run a dry run of the current draft"],
    }
    for verifier_id in ids:
        judge_requested_dry_run(
            client, client.post(f"/api/v1/author/verifiers/{verifier_id}/dry-runs/")
        )

    published = client.post(f"/api/v1/author/problems/{problem['id']}/publish/")

    assert published.status_code == 200, published.content
    body = published.json()
    assert body["status"] == "published"
    main, lax = body["verifiers"]
    assert (main["status"], main["publish_refusals"]) == ("published", {})
    assert lax["status"] == "draft"
    assert list(lax["publish_refusals"]) == ["dry_run"]
    assert lax["publish_refusals"]["dry_run"][0].startswith(
        "the last dry run failed: wrong sample 1: expected REJECTED, got ACCEPTED"
    )
    assert VerifierVersion.objects.filter(verifier_id=ids[1]).count() == 0
