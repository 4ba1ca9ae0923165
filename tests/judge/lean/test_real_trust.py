"""Issue 28 with the REAL bubblewrap and overlays: nothing a build wrote is trusted later.

The FAKE `lake` (test fixture) runs inside the real job sandboxes: it reads the kernel's merged
overlay at /judge/work and writes through it, and, as real Lake's `resolveConfigFile` does, it
loads a visible `lakefile.lean` in preference to `lakefile.toml` (then it "builds" anything and
`lake comparator` exits 0: the attack succeeding). The judge runs as the unprivileged user, as in
the image (root cannot nest bubblewrap). No Lean is verified here: every verdict carries the
FAKE marker; what is real is the sandbox, the overlay layering and the files.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import judge
from judge.lean.pipeline import FAKE_VERSION_SUFFIX

from .conftest import FIXTURE
from .test_real_tools import NOBODY, real_bwrap

REPO = Path(judge.__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def trust() -> Iterator[dict]:
    bwrap = real_bwrap()
    root = Path(tempfile.mkdtemp(prefix="lean-real-trust-"))
    root.chmod(0o755)
    try:
        shutil.copytree(FIXTURE, root / "toolchain", symlinks=True)
        (root / "toolchain" / "fake.json").write_text('{"delay_s": 0}')
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(root),
            "PYTHONPATH": str(REPO),
            "JUDGE_LEAN_TOOLCHAIN_DIR": str(root / "toolchain"),
            "JUDGE_LEAN_PROJECTS_DIR": str(root / "toolchain" / "projects"),
            "COMPARATOR_BWRAP": bwrap,
            "JUDGE_LEAN_CACHE_DIR": str(root / "cache"),
            "JUDGE_LEAN_WORK_DIR": str(root / "jobs"),
            "JUDGE_LEAN_ALLOW_FAKE_TOOLCHAIN": "1",
        }
        script = str(Path(__file__).with_name("real_trust_probe.py"))
        command = [sys.executable, script, str(root)]
        assert os.geteuid() == 0, "runs the judge as nobody through setpriv, as root"
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(root)], check=True)
        command = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *command]
        completed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
        assert completed.returncode == 0, completed.stderr[-3000:]
        yield json.loads(completed.stdout)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize(
    ("case", "path"),
    [
        ("writes_lakefile", "lakefile.lean"),
        ("plants_solution_olean", ".lake/build/lib/lean/Solution.olean"),
        ("plants_challenge_olean", ".lake/build/lib/lean/JudgeChallenge.olean"),
        ("plants_mathlib_olean", ".lake/build/lib/lean/Mathlib/"),
        ("plants_package_olean", ".lake/packages/"),
        ("plants_ir", ".lake/build/ir/Submission.c"),
        ("plants_toolchain", "lean-toolchain"),
    ],
)
def test_a_verifier_whose_build_writes_anything_else_is_refused_naming_the_file(
    trust: dict, case: str, path: str
) -> None:
    result = trust["prepare"][case]
    assert result["published"] is False, result
    assert "wrote files other than its own build outputs" in result["error"]
    assert path in result["error"]


def test_the_wrong_accept_of_the_issue_is_gone(trust: dict) -> None:
    # Today's code published that verifier with its whole build layer, and `lake comparator`
    # then loaded the author's lakefile.lean: a wrong solution was ACCEPTED.
    verdict = trust["wrong_with_bad_verifier"]
    assert verdict["verdict"] == "JUDGE_ERROR", verdict
    assert "lakefile.lean" in verdict["detail"]


def test_a_published_verifier_holds_only_copied_expected_outputs(trust: dict) -> None:
    assert trust["honest_files"] == [
        ".lake/build/lib/lean/JudgeAudit.olean",
        ".lake/build/lib/lean/JudgeChallenge.olean",
        ".lake/build/lib/lean/Verifier.olean",
    ]


def test_an_honest_solution_is_still_accepted_through_the_real_layers(trust: dict) -> None:
    verdict = trust["judge"]["ok"]
    assert verdict["verdict"] == "ACCEPTED", verdict
    assert verdict["judge_version"].endswith(FAKE_VERSION_SUFFIX)


@pytest.mark.parametrize(
    ("case", "reason", "detail"),
    [
        # Step 1 wrote the bridge's outputs: they never travel, the real bridge fails.
        ("plant_solution", "STATEMENT_MISMATCH", "must define a root-level"),
        # Step 1 wrote a lakefile.lean: step 2 still loads the judge's lakefile.toml.
        ("lakefile_mismatch", "STATEMENT_MISMATCH", "must define a root-level"),
        ("lakefile_hijack", "STATEMENT_MISMATCH", "Comparator rejected"),
        # The prepared Verifier.olean is a read-only file in a lower layer: overwriting it in
        # place fails (overlayfs checks the merged view), so the solution's build fails.
        ("plants_verifier_olean", "COMPILE_ERROR", "does not compile"),
        ("plants_mathlib_olean", "STATEMENT_MISMATCH", "Comparator rejected"),
    ],
)
def test_nothing_a_solutions_build_wrote_reaches_a_later_step(
    trust: dict, case: str, reason: str, detail: str
) -> None:
    verdict = trust["judge"][case]
    assert (verdict["verdict"], verdict["reason"]) == ("REJECTED", reason), verdict
    assert detail in verdict["detail"]


def test_a_job_reads_synthesized_account_files_not_the_hosts(trust: dict) -> None:
    # What `include_str "/etc/passwd"` would embed: the judge's synthesized file, no host data.
    etc = trust["etc"]
    assert etc["exit"] == 0, etc["output"]
    blocks = etc["output"].split("== ")[1:]
    sections = {block.split("\n", 1)[0]: block.split("\n", 1)[1] for block in blocks}
    # The judge runs as nobody here, so its own entry is nobody's.
    assert sections["/etc/passwd"] == (
        "root:x:0:0:root:/root:/usr/sbin/nologin\n"
        "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
    )
    assert sections["/etc/group"] == "root:x:0:\nnogroup:x:65534:\n"
    assert sections["/etc/gitconfig"] == "[safe]\n\tdirectory = *\n"
    host_users = {line.split(":")[0] for line in Path("/etc/passwd").read_text().splitlines()}
    assert host_users - {"root", "nobody"}, "the host must have other users for this test"
    # Only what a job needs is in /etc; git reads the synthesized config and names the user.
    listing = sections["ls"].split()
    assert listing == [
        "alternatives",
        "gitconfig",
        "group",
        "ld.so.cache",
        "ld.so.conf",
        "passwd",
        "*",
        "nobody",
    ]


def test_a_rebuild_inside_a_job_succeeds_in_its_own_layer_and_never_touches_the_prepared(
    trust: dict,
) -> None:
    # docs/lean-judge.md: the read-only prepared files do not make a rebuild fail closed, because
    # Lake writes oleans through a rename; the rebuilt file stays in the step's layer.
    rebuild = trust["rebuild"]
    assert rebuild["exit"] == 0, rebuild["output"]
    assert rebuild["output"].split() == ["inplace=no", "rename=yes", "rebuilt"]
    assert rebuild["upper"] == "rebuilt\n"
    assert "FAKE OLEAN Verifier" in rebuild["prepared"]
