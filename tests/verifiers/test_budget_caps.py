"""The default budget caps (issue 3): Python up to 60 s / 1 GB, Lean up to 10 min / 8 GB,
checked at the exact boundaries, on create, edit and publish."""

from __future__ import annotations

import pytest

from market.services.problems import create_problem
from market.services.verifier_authoring import create_verifier, publish_verifier, update_verifier
from tests.factories import UserFactory
from tests.verifiers.helpers import run_dry_run
from tests.verifiers.test_publishing import YES
from verifiers.exceptions import InvalidVerifier, PublishRefused
from verifiers.models import Verifier, VerifierVersion
from verifiers.services.publishing import budget_caps

pytestmark = pytest.mark.django_db


def test_the_default_caps_are_the_issues():
    assert budget_caps("python") == (60.0, 1024)
    assert budget_caps("lean") == (600.0, 8192)


@pytest.mark.parametrize(
    ("language", "time_limit_s", "memory_limit_mb", "refused"),
    [
        ("python", 60.0, 1024, set()),
        ("python", 60.001, 1024, {"time_limit_s"}),
        ("python", 60.0, 1025, {"memory_limit_mb"}),
        ("python", 0.0, 256, {"time_limit_s"}),
        ("python", 10.0, 15, {"memory_limit_mb"}),
        ("lean", 600.0, 8192, set()),
        ("lean", 600.5, 8192, {"time_limit_s"}),
        ("lean", 600.0, 8193, {"memory_limit_mb"}),
    ],
)
def test_budget_caps_at_the_boundaries(language, time_limit_s, memory_limit_mb, refused):
    author = UserFactory()
    problem = create_problem(author=author, title="Caps", statement_md="s")
    kwargs = {
        "author": author,
        "problem": problem,
        "language": language,
        "source": YES,
        "time_limit_s": time_limit_s,
        "memory_limit_mb": memory_limit_mb,
    }
    if not refused:
        assert create_verifier(**kwargs).time_limit_s == time_limit_s
        return
    with pytest.raises(InvalidVerifier) as exc:
        create_verifier(**kwargs)
    assert set(exc.value.fields) == refused
    assert not Verifier.objects.filter(problem=problem).exists()


def test_an_edit_over_the_cap_is_refused_and_a_published_version_keeps_its_budget(settings):
    author = UserFactory()
    problem = create_problem(author=author, title="Caps", statement_md="s")
    verifier = create_verifier(
        author=author, problem=problem, language="python", source=YES, reference_solutions=["yes"]
    )
    run_dry_run(author=author, verifier=verifier)
    version = publish_verifier(author=author, verifier=verifier)
    with pytest.raises(InvalidVerifier):
        update_verifier(author=author, verifier=verifier, time_limit_s=61.0)
    # Within the caps the draft changes, the published version does not, and publishing the
    # changed budget needs a new dry run.
    update_verifier(author=author, verifier=verifier, time_limit_s=20.0, memory_limit_mb=512)
    with pytest.raises(PublishRefused) as exc:
        publish_verifier(author=author, verifier=verifier)
    assert set(exc.value.fields) == {"dry_run"}
    version.refresh_from_db()
    assert (version.time_limit_s, version.memory_limit_mb) == (10.0, 256)
    assert VerifierVersion.objects.filter(verifier=verifier).count() == 1
