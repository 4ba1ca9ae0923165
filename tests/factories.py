"""factory_boy factories for the domain."""

from __future__ import annotations

import hashlib

import factory
from django.contrib.auth import get_user_model

from market.models import Problem, ProblemStatus, Solution, SolutionStatus, VerdictRecord
from market.money import Currency
from verifiers.models import Language, Verifier, VerifierStatus, VerifierVersion

TRIVIAL_VERIFIER = '''"""Solution format: the word yes."""


def verify(solution, rng):
    return solution.strip() == "yes"
'''


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.test")
    password = factory.django.Password("correct horse battery staple")


class ProblemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Problem

    author = factory.SubFactory(UserFactory)
    title = factory.Sequence(lambda n: f"Problem {n}")
    slug = factory.Sequence(lambda n: f"problem-{n}")
    statement_md = "Say **yes**."
    currency = Currency.DEMO
    is_demo = False
    status = ProblemStatus.PUBLISHED


class VerifierFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Verifier

    problem = factory.SubFactory(ProblemFactory)
    name = "main"
    language = Language.PYTHON
    status = VerifierStatus.PUBLISHED
    draft_source = TRIVIAL_VERIFIER
    time_limit_s = 10.0
    memory_limit_mb = 256


class VerifierVersionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = VerifierVersion

    verifier = factory.SubFactory(VerifierFactory)
    number = 1
    language = factory.LazyAttribute(lambda v: v.verifier.language)
    source = factory.LazyAttribute(lambda v: v.verifier.draft_source)
    sha256 = factory.LazyAttribute(lambda v: hashlib.sha256(v.source.encode()).hexdigest())
    time_limit_s = factory.LazyAttribute(lambda v: v.verifier.time_limit_s)
    memory_limit_mb = factory.LazyAttribute(lambda v: v.verifier.memory_limit_mb)
    lean_project = factory.LazyAttribute(lambda v: v.verifier.lean_project)
    solution_format = "the word yes"


class SolutionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Solution

    verifier_version = factory.SubFactory(VerifierVersionFactory)
    problem = factory.LazyAttribute(lambda s: s.verifier_version.verifier.problem)
    solver = factory.SubFactory(UserFactory)
    text = factory.Sequence(lambda n: f"yes {n}")
    sha256 = factory.LazyAttribute(lambda s: hashlib.sha256(s.text.encode()).hexdigest())
    size_bytes = factory.LazyAttribute(lambda s: len(s.text.encode()))
    status = SolutionStatus.PENDING


def accepted_solution(**kwargs: object) -> Solution:
    """A solution with an ACCEPTED verdict record, as the judge would leave it."""
    solution = SolutionFactory(status=SolutionStatus.ACCEPTED, **kwargs)
    VerdictRecord.objects.create(
        solution=solution, verdict="ACCEPTED", reason="", detail="ok", judge_version="test"
    )
    return solution
