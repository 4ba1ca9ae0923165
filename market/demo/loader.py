"""Load the demo problems of market/demo/ into the database (idempotent).

Each demo folder holds a verifier, a meta.json {title, slug, statement_md, time_limit_s,
memory_limit_mb[, project]}, a reference solution and a wrong one. The demo sources are
trusted, checked in, and judged by the test suite (tests/demo/), so they are published here
directly rather than through the author workflow's dry run: `make run` must start in seconds,
and on a server without Lean a Lean verifier could never pass a dry run.

Running the loader twice changes nothing. When a verifier's source or budget changed in the
repository, a new version is published and the old one retired.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import re
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from market.models import Problem, ProblemStatus
from market.money import Currency
from verifiers.models import Language, Verifier, VerifierStatus, VerifierVersion

DEMO_DIR = Path(__file__).resolve().parent
AUTHOR_USERNAME = "demo-author"
_SPEC_START = re.compile(
    r"^(?:@\[[^\]]*\]\s*)?(?:noncomputable\s+)?(?:abbrev|def|structure)\s+Spec\b"
)


@dataclasses.dataclass(frozen=True)
class DemoSource:
    folder: Path
    language: Language
    meta: dict[str, object]
    verifier_source: str
    reference: str | None
    wrong: str | None

    @property
    def slug(self) -> str:
        """meta.json's slug, else demo-<language>-<folder> (the Lean demos name none)."""
        explicit = self.meta.get("slug")
        if explicit:
            return str(explicit)
        return f"demo-{self.language}-{self.folder.name.replace('_', '-')}"


def find_demo_sources(root: Path = DEMO_DIR) -> list[DemoSource]:
    """Every complete demo folder under root/python and root/lean, in a stable order."""
    found: list[DemoSource] = []
    for language, subdir, extension in (
        (Language.PYTHON, "python", ".py"),
        (Language.LEAN, "lean", ".lean"),
    ):
        base = root / subdir
        if not base.is_dir():
            continue
        for folder in sorted(p for p in base.iterdir() if p.is_dir()):
            verifier = folder / f"verifier{extension}"
            meta = folder / "meta.json"
            if not (verifier.is_file() and meta.is_file()):
                continue
            found.append(
                DemoSource(
                    folder=folder,
                    language=language,
                    meta=json.loads(meta.read_text(encoding="utf-8")),
                    verifier_source=verifier.read_text(encoding="utf-8"),
                    reference=_first_text(folder, "solution"),
                    wrong=_first_text(folder, "wrong"),
                )
            )
    return found


def _first_text(folder: Path, prefix: str) -> str | None:
    for path in sorted(folder.iterdir()):
        if path.is_file() and path.name.startswith(prefix) and path.suffix != ".json":
            return path.read_text(encoding="utf-8")
    return None


def solution_format(*, language: str, source: str) -> str:
    """What a solver must submit: the Python module docstring, or the Lean Spec declaration."""
    if language == Language.PYTHON:
        try:
            return ast.get_docstring(ast.parse(source)) or ""
        except SyntaxError:
            return ""
    lines = source.splitlines()
    for index, line in enumerate(lines):
        if _SPEC_START.match(line):
            block = [line]
            for following in lines[index + 1 :]:
                if not following.strip() or not following[:1].isspace():
                    break
                block.append(following)
            return "\n".join(block)
    return ""


def _allowed_axioms(source: str) -> list[str]:
    from judge.lean.allow import parse_allow_line

    return list(parse_allow_line(source).widened)


def _get_or_create_system_user(username: str) -> AbstractBaseUser:
    user, created = get_user_model().objects.get_or_create(username=username)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


@dataclasses.dataclass
class LoadReport:
    problems_created: int = 0
    versions_published: int = 0
    unchanged: int = 0


def load_demo_problems(root: Path = DEMO_DIR) -> LoadReport:
    """Create or update the demo problems and their published verifier versions."""
    author = _get_or_create_system_user(AUTHOR_USERNAME)
    report = LoadReport()
    for demo in find_demo_sources(root):
        with transaction.atomic():
            _load_one(demo=demo, author=author, report=report)
    return report


def _load_one(*, demo: DemoSource, author: AbstractBaseUser, report: LoadReport) -> None:
    meta = demo.meta
    slug = demo.slug
    now = timezone.now()
    problem, created = Problem.objects.get_or_create(
        slug=slug,
        defaults={
            "author": author,
            "title": str(meta["title"]),
            "statement_md": str(meta.get("statement_md", "")),
            "currency": Currency.DEMO,
            "is_demo": True,
            "status": ProblemStatus.PUBLISHED,
            "published_at": now,
        },
    )
    if created:
        report.problems_created += 1
    lean_project = str(meta.get("project", "core")) if demo.language == Language.LEAN else ""
    time_limit_s = float(meta.get("time_limit_s", 10))  # type: ignore[arg-type]
    memory_limit_mb = int(meta.get("memory_limit_mb", 256))  # type: ignore[call-overload]
    verifier, _ = Verifier.objects.get_or_create(
        problem=problem,
        name="main",
        defaults={
            "language": demo.language,
            "status": VerifierStatus.PUBLISHED,
            "draft_source": demo.verifier_source,
            "time_limit_s": time_limit_s,
            "memory_limit_mb": memory_limit_mb,
            "lean_project": lean_project,
            "is_source_public": True,
            "reference_solutions": [demo.reference] if demo.reference else [],
            "wrong_solutions": [demo.wrong] if demo.wrong else [],
        },
    )
    sha256 = hashlib.sha256(demo.verifier_source.encode("utf-8")).hexdigest()
    current = verifier.versions.filter(is_active=True).order_by("-number").first()
    if (
        current is not None
        and current.sha256 == sha256
        and current.time_limit_s == time_limit_s
        and current.memory_limit_mb == memory_limit_mb
        and current.lean_project == lean_project
    ):
        report.unchanged += 1
        return
    # The repository's source changed: supersede the published version.
    verifier.versions.filter(is_active=True).update(is_active=False)
    Verifier.objects.filter(pk=verifier.pk).update(
        draft_source=demo.verifier_source,
        time_limit_s=time_limit_s,
        memory_limit_mb=memory_limit_mb,
        lean_project=lean_project,
        status=VerifierStatus.PUBLISHED,
        reference_solutions=[demo.reference] if demo.reference else [],
        wrong_solutions=[demo.wrong] if demo.wrong else [],
    )
    number = (verifier.versions.aggregate(top=Max("number"))["top"] or 0) + 1
    VerifierVersion.objects.create(
        verifier=verifier,
        number=number,
        language=demo.language,
        source=demo.verifier_source,
        sha256=sha256,
        time_limit_s=time_limit_s,
        memory_limit_mb=memory_limit_mb,
        lean_project=lean_project,
        solution_format=solution_format(language=demo.language, source=demo.verifier_source),
        allowed_axioms=_allowed_axioms(demo.verifier_source)
        if demo.language == Language.LEAN
        else [],
        is_active=True,
    )
    report.versions_published += 1
