"""Run by test_real_trust.py as the unprivileged judge user, with the REAL bubblewrap.

Usage: python real_trust_probe.py ROOT. ROOT holds ``toolchain/`` (a copy of the FAKE Lean
toolchain: its `lake` runs inside the real sandboxes, reading and writing the real merged
overlay) and receives ``cache/`` and ``jobs/``. Prepares verifiers and judges solutions with the
judge's public functions, and prints one JSON object. Every verdict it prints carries the FAKE
toolchain's marker: nothing here is Lean verification; the sandbox, overlays and files are real.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from judge.lean import LeanJob, VerifierRejected, judge_lean, prepare_verifier
from judge.lean.pipeline import job_layers, write_job_sources
from judge.lean.steps import run_step
from judge.lean.toolchain import discover

HONEST = "abbrev Spec : Prop := 2 + 2 = 4\n"
VERIFIERS = {
    "writes_lakefile": "-- fake: verifier_writes_lakefile\n" + HONEST,
    "plants_solution_olean": "-- fake: verifier_plants=.lake/build/lib/lean/Solution.olean\n"
    + HONEST,
    "plants_challenge_olean": (
        "-- fake: verifier_plants=.lake/build/lib/lean/JudgeChallenge.olean\n" + HONEST
    ),
    "plants_mathlib_olean": "-- fake: verifier_plants=.lake/build/lib/lean/Mathlib/Init.olean\n"
    + HONEST,
    "plants_package_olean": (
        "-- fake: verifier_plants=.lake/packages/mathlib/.lake/build/lib/lean/Mathlib.olean\n"
        + HONEST
    ),
    "plants_ir": "-- fake: verifier_plants=.lake/build/ir/Submission.c\n" + HONEST,
    "plants_toolchain": "-- fake: verifier_plants=lean-toolchain\n" + HONEST,
}
WRONG = "import Verifier\ntheorem answer : 2 + 2 = 5 := sorry\n"
SOLUTIONS = {
    "ok": "import Verifier\ntheorem answer : Spec := by decide\n",
    "plant_solution": "-- fake: plant_solution\n" + WRONG,
    "lakefile_mismatch": "-- fake: lakefile_mismatch\n" + WRONG,
    "lakefile_hijack": (
        "-- fake: lakefile_hijack\nimport Verifier\ntheorem answer : Spec := by decide\n"
    ),
    "plants_verifier_olean": (
        "-- fake: solution_plants=.lake/build/lib/lean/Verifier.olean\n"
        "import Verifier\ntheorem answer : Spec := by decide\n"
    ),
    "plants_mathlib_olean": (
        "-- fake: solution_plants=.lake/build/lib/lean/Mathlib/Init.olean\n"
        "import Verifier\ntheorem answer : Spec := by decide\n"
    ),
}


def verdict_json(verdict) -> dict:  # type: ignore[no-untyped-def]
    return {
        "verdict": verdict.verdict.value,
        "reason": verdict.reason.value if verdict.reason else None,
        "detail": verdict.detail,
        "judge_version": verdict.judge_version,
    }


def main() -> None:
    toolchain = discover()
    out: dict[str, object] = {"prepare": {}, "judge": {}, "wrong_with_bad_verifier": None}
    for name, source in VERIFIERS.items():
        try:
            prepared = prepare_verifier(source, "core", toolchain=toolchain)
            files = sorted(
                str(p.relative_to(prepared.build_dir))
                for p in prepared.build_dir.rglob("*")
                if not p.is_dir()
            )
            out["prepare"][name] = {"published": True, "files": files}  # type: ignore[index]
        except VerifierRejected as exc:
            out["prepare"][name] = {"published": False, "error": str(exc)}  # type: ignore[index]
    # The wrong ACCEPT: a verifier whose build wrote a lakefile.lean, a wrong solution.
    bad = LeanJob(VERIFIERS["writes_lakefile"], WRONG, "core", 60, 2048)
    out["wrong_with_bad_verifier"] = verdict_json(judge_lean(bad, toolchain=toolchain))

    honest = prepare_verifier(HONEST, "core", toolchain=toolchain)
    out["honest_files"] = sorted(
        str(p.relative_to(honest.build_dir)) for p in honest.build_dir.rglob("*") if not p.is_dir()
    )
    for name, solution in SOLUTIONS.items():
        job = LeanJob(HONEST, solution, "core", 60, 2048)
        out["judge"][name] = verdict_json(judge_lean(job, toolchain=toolchain))  # type: ignore[index]

    # What a job reads at /etc (the pipeline's own layers and sandbox command line).
    job_dir = Path(sys.argv[1]) / "jobs" / "job-etc"
    write_job_sources(job_dir, SOLUTIONS["ok"], honest, toolchain)
    _, layers = job_layers(job_dir, toolchain.project_dir("core"), honest)
    script = (
        'for f in /etc/passwd /etc/group /etc/gitconfig; do echo "== $f"; cat $f; done; '
        "echo '== ls'; ls -A /etc; git config --system --get safe.directory; id -un"
    )
    result = run_step(
        toolchain, layers, ["/bin/sh", "-c", script], time_limit_s=60, memory_limit_mb=2048
    )
    out["etc"] = {"exit": result.exit_code, "output": result.output_tail.decode("utf-8", "replace")}
    # How Lake writes an olean (a temporary file renamed over the target): beside the prepared,
    # read-only Verifier.olean of a lower layer this SUCCEEDS, into the step's upper layer, while
    # an in-place overwrite fails. A rebuild inside a job does not fail closed; it stays there.
    olean = ".lake/build/lib/lean/Verifier.olean"
    rename = (
        f"if {{ echo in-place > {olean}; }} 2>/dev/null; then echo inplace=yes; "
        "else echo inplace=no; fi; "
        f"echo rebuilt > {olean}.tmp && mv -f {olean}.tmp {olean} && echo rename=yes; cat {olean}"
    )
    result = run_step(
        toolchain, layers, ["/bin/sh", "-c", rename], time_limit_s=60, memory_limit_mb=2048
    )
    out["rebuild"] = {
        "exit": result.exit_code,
        "output": result.output_tail.decode("utf-8", "replace"),
        "upper": (layers.upper / olean).read_text() if (layers.upper / olean).is_file() else None,
        "prepared": (honest.build_dir / olean).read_text(),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
