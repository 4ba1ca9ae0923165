"""The judge as an unprivileged user (as in the image), with overlay-style permission checks."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import judge

from .conftest import FIXTURE

NOBODY = 65534
SCRIPT = """
import os, sys
from pathlib import Path
from judge.lean import LeanJob, judge_lean
verifier = "abbrev Spec : Prop := True\\n"
solution = "import Verifier\\ntheorem answer : Spec := trivial\\n"
job = LeanJob(verifier, solution, "core", 30, 2048)
first, second = judge_lean(job), judge_lean(job)
[entry] = [p for p in Path(os.environ["JUDGE_LEAN_CACHE_DIR"]).iterdir() if p.is_dir()
           and p.name != ".staging"]
olean = entry / "build" / ".lake" / "build" / "lib" / "lean" / "JudgeChallenge.olean"
print(first.verdict.value, second.verdict.value, os.access(olean, os.W_OK),
      os.access(entry / "build", os.W_OK))
"""


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    # pytest's tmp_path is private to root; this one is handed to the unprivileged user.
    root = Path(tempfile.mkdtemp(prefix="lean-judge-nonroot-"))
    root.chmod(0o755)
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_prepared_build_is_read_only_for_the_unprivileged_judge(shared_tmp: Path) -> None:
    # Fails, never skips, where it cannot run: the suite runs as root (like the judge's
    # supervisor), with setpriv (util-linux) and the system python3.
    assert os.geteuid() == 0, "needs root to switch to an unprivileged user"
    assert shutil.which("setpriv") is not None and Path("/usr/bin/python3").exists()
    toolchain = shared_tmp / "toolchain"
    shutil.copytree(FIXTURE, toolchain)
    (toolchain / "fake.json").write_text('{"delay_s": 0}')
    subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(shared_tmp)], check=True)
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(shared_tmp),
        "PYTHONPATH": str(Path(judge.__file__).resolve().parents[1]),
        "JUDGE_LEAN_TOOLCHAIN_DIR": str(toolchain),
        "JUDGE_LEAN_PROJECTS_DIR": str(toolchain / "projects"),
        "COMPARATOR_BWRAP": str(toolchain / "sandbox" / "bwrap"),
        "JUDGE_LEAN_CACHE_DIR": str(shared_tmp / "cache"),
        "JUDGE_LEAN_WORK_DIR": str(shared_tmp / "jobs"),
        "JUDGE_LEAN_ALLOW_FAKE_TOOLCHAIN": "1",
    }

    completed = subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        + ["/usr/bin/python3", "-c", SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert completed.returncode == 0, completed.stderr[-2000:]
    # Files of the prepared build are read-only; its directories stay writable because overlayfs
    # checks the merged view (the solution's own files go to its upper layer beside them).
    assert completed.stdout.split() == ["ACCEPTED", "ACCEPTED", "False", "True"]
