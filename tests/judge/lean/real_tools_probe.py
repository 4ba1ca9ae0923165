"""Run by test_real_tools.py as the unprivileged judge user: real bubblewrap, which, git, env.

Usage: python real_tools_probe.py ROOT. ROOT holds ``toolchain/`` (a copy of the FAKE Lean
toolchain: only ``lake --version`` of it runs here) and receives ``cache/`` and ``jobs/``.
COMPARATOR_BWRAP names the real bubblewrap. Builds a job folder and its layers with the
pipeline's own functions, runs each check with the pipeline's own sandbox command line
(judge.lean.steps.run_step -> judge.lean.sandbox.build_argv), and prints one JSON object.
Nothing here is Lean verification: no Lean code is elaborated.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from judge.lean.canary import check_sandbox, lake_tools, nested_command
from judge.lean.compare import comparator_layers, copy_solution_artifacts
from judge.lean.limits import run_limited
from judge.lean.pipeline import job_layers, write_job_sources
from judge.lean.prepare import PreparedVerifier
from judge.lean.project import SpecKind
from judge.lean.sandbox import build_argv, comparator_env, host_env
from judge.lean.steps import SandboxFailed, make_read_only, run_step
from judge.lean.toolchain import discover

OLEAN = ".lake/build/lib/lean"
INNER_SCRIPT = """
set -u
echo "written by the inner sandbox" > .lake/inner.txt
echo "inner_home=$(ls -A /home /root | tr '\\n' ' ')"
echo "inner_tmp=$(ls -A /tmp | tr '\\n' ' ')"
echo "inner_verifier=$(head -c 40 Verifier.lean)"
echo "inner_submission=$(head -c 40 Submission.lean)"
if echo forged > /judge/work/Verifier.lean 2>/dev/null
then echo inner_ro=no
else echo inner_ro=yes
fi
echo "inner_pid1=$(tr '\\0' ' ' < /proc/1/cmdline)"
echo "inner_net=$(ls /sys/class/net 2>/dev/null | tr '\\n' ' ')"
"""


def _prepared(root: Path, toolchain_root: Path) -> PreparedVerifier:
    """A prepared verifier as prepare_verifier leaves it (read-only files, writable folders)."""
    entry = root / "cache" / "prepared"
    (entry / "src").mkdir(parents=True)
    (entry / "src" / "Verifier.lean").write_text("abbrev Spec : Prop := True\n")
    (entry / "src" / "lakefile.toml").write_text('name = "judge"\n')
    challenge = entry / "build" / OLEAN / "JudgeChallenge.olean"
    challenge.parent.mkdir(parents=True)
    challenge.write_text("PREPARED challenge\n")
    make_read_only(entry)
    return PreparedVerifier(
        key="probe",
        path=entry,
        project="core",
        spec_kind=SpecKind.PROP,
        permitted_axioms=("propext", "Classical.choice", "Quot.sound"),
        widened_axioms=(),
        build_time_s=0.0,
    )


def _run(toolchain, layers, command, env=None):  # type: ignore[no-untyped-def]
    result = run_step(
        toolchain, layers, command, time_limit_s=60, memory_limit_mb=2048, extra_env=env
    )
    return {
        "exit": result.exit_code,
        "output": result.output_tail.decode("utf-8", "replace"),
    }


def main() -> None:
    root = Path(sys.argv[1])
    toolchain = discover()
    prepared = _prepared(root, root / "toolchain")
    job = root / "jobs" / "job-probe"
    write_job_sources(
        job, "import Verifier\ntheorem answer : Spec := trivial\n", prepared, toolchain
    )
    trusted, layers = job_layers(job, toolchain.project_dir("core"), prepared)
    env = comparator_env(toolchain)
    out: dict[str, object] = {
        "argv": build_argv(toolchain=toolchain, layers=layers, command=["true"], extra_env=env),
        "tools": lake_tools(toolchain),
    }
    try:
        check_sandbox(toolchain, layers, 2048)
        out["canary"] = "ok"
    except SandboxFailed as exc:
        out["canary"] = str(exc)
    out["which"] = _run(toolchain, layers, ["which", *lake_tools(toolchain)], env)
    out["git"] = _run(
        toolchain,
        layers,
        ["/bin/sh", "-c", "git --version && git init -q /tmp/repo && git -C /tmp/repo status -s"],
        env,
    )
    out["env"] = _run(toolchain, layers, ["env"], env)
    out["env_i"] = _run(toolchain, layers, ["env", "-i", "/usr/bin/env"], env)
    # The defect this replaces: without /etc/alternatives, Debian's `which` is a dangling link.
    argv = build_argv(toolchain=toolchain, layers=layers, command=["which", "git"], extra_env=env)
    if "/etc/alternatives" in argv:
        at = argv.index("/etc/alternatives")
        del argv[at - 1 : at + 2]
        result = run_limited(
            argv, env=host_env(), cwd=layers.upper, time_limit_s=60, memory_limit_mb=2048
        )
        out["which_without_alternatives"] = {"exit": result.exit_code}
    inner = nested_command(toolchain, ["/bin/sh", "-c", INNER_SCRIPT])
    out["nested"] = _run(toolchain, layers, inner, env)

    # Step 4's layers: what the solution's build wrote is copied out (only its own artifacts),
    # then mounted beneath every trusted layer, as the pipeline does.
    forged = layers.upper / OLEAN
    forged.mkdir(parents=True, exist_ok=True)
    (forged / "Submission.olean").write_text("solution artifact\n")
    (forged / "JudgeChallenge.olean").write_text("FORGED by the solution\n")
    copy_solution_artifacts(layers.upper, job / "artifacts")
    (job / "artifacts" / OLEAN / "JudgeChallenge.olean").write_text("FORGED below\n")
    step4 = comparator_layers(job, trusted)
    seen = f"cat {OLEAN}/JudgeChallenge.olean {OLEAN}/Submission.olean"
    out["step4_reads"] = _run(toolchain, step4, ["/bin/sh", "-c", seen], env)
    out["step4_nested"] = _run(
        toolchain,
        step4,
        nested_command(toolchain, ["/bin/sh", "-c", "echo step4 > .lake/step4.txt"]),
        env,
    )
    out["layers"] = {
        "build_lower": [str(path) for path in layers.lower],
        "build_upper": str(layers.upper),
        "step4_lower": [str(path) for path in step4.lower],
        "step4_upper": str(step4.upper),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
