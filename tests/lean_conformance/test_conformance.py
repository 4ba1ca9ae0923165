"""Conformance of the Lean judge against a REAL toolchain: one Verifier/Solution pair per trick.

Runs with `make lean-conformance` (pytest tests/lean_conformance -m lean_conformance), normally
inside sandbox_images/lean. Without a real toolchain every test here FAILS with the reason: this
suite never passes and never skips where it could not run. The fake toolchain of tests/judge/lean
is refused too.

Each case directory holds verifier.lean, solution.lean and expected.json:
  {"verdict": "ACCEPTED"}                              exact
  {"verdict": "REJECTED", "reasons": [...], "axioms": [...]}
      the verdict is exact; the reason must be one of "reasons" (several are listed where the
      layer that catches a trick depends on the toolchain, e.g. a trick that no longer compiles);
      "axioms" must all appear in the verdict's axioms
  {"verifier_error": "<substring>"}                    publishing (prepare_verifier) refuses it
Placeholders {{SECRET_FILE}} and {{FORMALMARKET_FILE}} name files outside the job that must not
be readable from a solution; {{HOST_PASSWD_USER}} is a user of the host's /etc/passwd that the
job's synthesized /etc/passwd does not name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import judge
from judge.lean import LeanJob, VerifierRejected, judge_lean, prepare_verifier, toolchain_status
from judge.verdict import Outcome

pytestmark = pytest.mark.lean_conformance

HERE = Path(__file__).parent
CASES = sorted(path for path in (HERE / "cases").iterdir() if path.is_dir())
DEMOS_DIR = Path(judge.__file__).resolve().parents[1] / "market" / "demo" / "lean"
DEMOS = sorted(path for path in DEMOS_DIR.iterdir() if (path / "meta.json").is_file())
# What each demo's wrong_solution.lean must be rejected for.
DEMO_WRONG_REASONS = {
    "two_plus_two": "AXIOM_VIOLATION",
    "factor_391": "COMPILE_ERROR",
    "add_comm": "COMPILE_ERROR",
    "prime_997": "STATEMENT_MISMATCH",
}


@pytest.fixture(scope="session")
def real_toolchain() -> None:
    status = toolchain_status()
    if not status.available:
        pytest.fail(
            "LEAN CONFORMANCE SUITE CANNOT RUN: no usable Lean toolchain "
            f"({status.reason}). It never passes or skips without one; run it in "
            "sandbox_images/lean (see its README).",
            pytrace=False,
        )
    if status.is_fake:
        pytest.fail(
            "LEAN CONFORMANCE SUITE REFUSES THE FAKE TOOLCHAIN: unset "
            "JUDGE_LEAN_ALLOW_FAKE_TOOLCHAIN and point JUDGE_LEAN_TOOLCHAIN_DIR at a real Lean.",
            pytrace=False,
        )


@pytest.fixture(scope="session")
def placeholders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    secret = Path.home() / ".formalmarket-conformance-secret"
    try:
        secret.write_text("sk_live_conformance_canary\n")
    except OSError:
        secret = tmp_path_factory.mktemp("secret") / "secret.txt"
        secret.write_text("sk_live_conformance_canary\n")
    return {
        "{{SECRET_FILE}}": str(secret),
        "{{FORMALMARKET_FILE}}": str(Path(judge.__file__).resolve()),
        "{{HOST_PASSWD_USER}}": host_passwd_user(),
    }


def host_passwd_user() -> str:
    """A user of the host's /etc/passwd that the job's synthesized file never names."""
    for line in Path("/etc/passwd").read_text(encoding="utf-8").splitlines():
        name = line.split(":", 1)[0]
        if name and name not in ("root", "judge", "nobody") and name.isidentifier():
            return name
    raise AssertionError("the host's /etc/passwd names no other user: the case cannot tell")


def _render(text: str, placeholders: dict[str, str]) -> str:
    for key, value in placeholders.items():
        text = text.replace(key, value)
    return text


def test_the_suite_covers_every_known_trick() -> None:
    assert len(CASES) >= 30
    assert {path.name for path in DEMOS} >= set(DEMO_WRONG_REASONS)


@pytest.mark.parametrize("case", CASES, ids=[path.name for path in CASES])
def test_case(real_toolchain: None, placeholders: dict[str, str], case: Path) -> None:
    expected = json.loads((case / "expected.json").read_text(encoding="utf-8"))
    verifier = _render((case / "verifier.lean").read_text(encoding="utf-8"), placeholders)
    solution = _render((case / "solution.lean").read_text(encoding="utf-8"), placeholders)

    if "verifier_error" in expected:
        with pytest.raises(VerifierRejected) as refused:
            prepare_verifier(verifier, expected["project"])
        assert expected["verifier_error"] in str(refused.value)
        return

    verdict = judge_lean(
        LeanJob(
            verifier_source=verifier,
            solution=solution,
            project=expected["project"],
            time_limit_s=float(expected.get("time_limit_s", 300)),
            memory_limit_mb=int(expected.get("memory_limit_mb", 4096)),
        )
    )

    assert verdict.verdict is Outcome(expected["verdict"]), verdict.detail
    if verdict.verdict is Outcome.REJECTED:
        assert verdict.reason is not None
        assert verdict.reason.value in expected["reasons"], verdict.detail
        assert set(expected.get("axioms", [])) <= set(verdict.axioms or ()), verdict.axioms
    # Nothing read from outside the job may ever reach a verdict.
    assert "sk_live_conformance_canary" not in verdict.to_json()


@pytest.mark.parametrize("demo", DEMOS, ids=[path.name for path in DEMOS])
def test_demo_problem(real_toolchain: None, demo: Path) -> None:
    meta = json.loads((demo / "meta.json").read_text(encoding="utf-8"))
    verifier = (demo / "verifier.lean").read_text(encoding="utf-8")

    def run(solution_file: str) -> judge.verdict.Verdict:
        return judge_lean(
            LeanJob(
                verifier_source=verifier,
                solution=(demo / solution_file).read_bytes(),
                project=meta["project"],
                time_limit_s=float(meta["time_limit_s"]),
                memory_limit_mb=int(meta["memory_limit_mb"]),
            )
        )

    good = run("solution.lean")
    wrong = run("wrong_solution.lean")

    assert good.verdict is Outcome.ACCEPTED, good.detail
    assert wrong.verdict is Outcome.REJECTED, wrong.detail
    assert wrong.reason is not None
    assert wrong.reason.value == DEMO_WRONG_REASONS[demo.name], wrong.detail


def test_verifier_build_is_reused(real_toolchain: None) -> None:
    source = "abbrev Spec : Prop := 3 + 3 = 6\n"

    first = prepare_verifier(source, "core")
    second = prepare_verifier(source, "core")

    assert first.path == second.path
    oleans = list(first.build_dir.rglob("*.olean"))
    assert oleans
    assert all(path.stat().st_mode & 0o222 == 0 for path in oleans)
