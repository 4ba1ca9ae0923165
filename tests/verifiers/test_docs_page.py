"""The verifier guide (/docs/verifiers/): served to anyone, linked from the author pages, and
listing the rules the publishing check and the library actually enforce."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from formalmarket_verify import Budget
from judge.python.imports import THIRD_PARTY_PACKAGES, VERIFIER_STDLIB
from judge.python.static import rules
from market.models import Problem
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_guide_documents_the_library_and_the_publishing_rules() -> None:
    response = Client().get("/docs/verifiers/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "from formalmarket_verify import ParseError, parse_math" in html
    assert "((10**1000)**1000)**1000" in html
    for name in THIRD_PARTY_PACKAGES:
        assert f"<code>{name}</code>" in html
    assert f"<td><code>max_bits</code></td><td>{Budget().max_bits}</td>" in html
    for name in ("numpy.load", "sympy.lambdify", "eval", "pickle", "sympy.sympify"):
        assert name in rules.REFUSED or name in rules.LITERAL_ONLY
        assert f"<code>{name}</code>" in html
    assert "<code>formalmarket_verify.parse_math()</code>" in html
    for name in ("fractions", "itertools", "json", "math", "re"):  # the stdlib's positive list
        assert name in VERIFIER_STDLIB
        assert f"<code>{name}</code>" in html
    for name in ("pkgutil", "pydoc", "os", "importlib"):
        assert name not in VERIFIER_STDLIB
    for name in ("getattr", "operator.attrgetter", "pkgutil.resolve_name", "pydoc.locate"):
        assert name in rules.BY_NAME
        assert f"<code>{name}</code>" in html


def test_the_guide_obeys_the_content_security_policy() -> None:
    html = Client().get(reverse("docs-verifiers")).content.decode()

    assert "<script" not in html.partition("</head>")[2].replace('<script src="', "")
    assert not re.search(r"\sstyle=|\son[a-z]+=", html.split("<main", 1)[1])


def test_the_author_verifier_page_links_to_the_guide() -> None:
    author = UserFactory()
    client = Client()
    client.force_login(author)
    client.post(
        reverse("author-problem-new"),
        {"title": "Say yes", "statement_md": "Say **yes**.", "currency": "DEMO"},
    )
    problem = Problem.objects.get(title="Say yes")

    page = client.get(reverse("author-verifier-new", args=[problem.pk]))

    assert page.status_code == 200
    assert f'href="{reverse("docs-verifiers")}"' in page.content.decode()
