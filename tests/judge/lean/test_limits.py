"""The outer limits around a step, with real processes (and real bubblewrap when usable)."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from judge.lean.limits import run_limited
from tests.waiting import scaled, wait_until

MARKER = "300.9876"


def _marker_processes() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(") ", 1)[1][0]
        except OSError:
            continue
        if MARKER.encode() in cmdline and state not in "ZX":
            found.append(int(entry.name))
    return found


def _bwrap_usable() -> bool:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return False
    probe = subprocess.run(
        [bwrap, "--ro-bind", "/", "/", "--unshare-all", "--", "true"], capture_output=True
    )
    return probe.returncode == 0


def test_exit_status_and_output_tail(tmp_path: Path) -> None:
    result = run_limited(
        ["sh", "-c", "echo hello; exit 7"],
        env={"PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
        time_limit_s=10,
        memory_limit_mb=512,
    )

    assert (result.exit_code, result.timed_out, result.memory_exceeded) == (7, False, False)
    assert result.output_tail == b"hello\n"


def test_wall_clock_kills_the_whole_tree_including_detached_children(tmp_path: Path) -> None:
    started = time.monotonic()

    result = run_limited(
        ["sh", "-c", f"setsid sleep {MARKER} & sleep {MARKER}"],
        env={"PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
        time_limit_s=0.5,
        memory_limit_mb=512,
    )

    assert result.timed_out is True
    assert result.exit_code is None
    assert time.monotonic() - started < scaled(5)
    assert _marker_processes() == []


def test_memory_of_the_tree_is_summed(tmp_path: Path) -> None:
    # Two children of 60 MB each: neither alone passes 100 MB, together they do.
    hog = "import time; b = b'x' * (60 * 1024 * 1024); time.sleep(30)"
    result = run_limited(
        ["sh", "-c", f'python3 -c "{hog}" & python3 -c "{hog}"; wait'],
        env={"PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
        time_limit_s=20,
        memory_limit_mb=100,
    )

    assert result.memory_exceeded is True
    assert result.exit_code is None
    assert result.peak_memory_mb > 100


def test_output_is_capped(tmp_path: Path) -> None:
    result = run_limited(
        ["sh", "-c", "head -c 300000 /dev/zero | tr '\\0' 'a'; echo END"],
        env={"PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
        time_limit_s=10,
        memory_limit_mb=512,
    )

    assert len(result.output_tail) == 64 * 1024
    assert result.output_tail.endswith(b"aEND\n")


def test_missing_program_is_a_spawn_error(tmp_path: Path) -> None:
    result = run_limited(
        [str(tmp_path / "nope")], env={}, cwd=tmp_path, time_limit_s=1, memory_limit_mb=64
    )

    assert result.exit_code is None
    assert result.spawn_error is not None


def test_real_bubblewrap_tree_in_a_pid_namespace_is_killed(tmp_path: Path) -> None:
    # Fails, never skips, without a working bubblewrap: `make test` always installs it.
    assert _bwrap_usable(), "bubblewrap cannot create namespaces here"
    result = run_limited(
        [
            shutil.which("bwrap") or "bwrap",
            "--ro-bind",
            "/",
            "/",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--unshare-all",
            "--die-with-parent",
            "--new-session",
            "--",
            "sh",
            "-c",
            f"setsid sleep {MARKER} & sleep {MARKER}",
        ],
        env={"PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
        time_limit_s=0.7,
        memory_limit_mb=512,
    )

    assert result.timed_out is True
    with contextlib.suppress(AssertionError):  # whether they are gone is asserted below
        wait_until(lambda: not _marker_processes(), "the marker processes to be gone", 2)
    assert _marker_processes() == []


@pytest.mark.parametrize(
    ("log", "position"),
    [
        (b"Submission.lean:2:10: error: unknown tactic\n", (2, 10)),
        (
            b"\xe2\x9c\x96 [3/4] Building Submission\nerror: ././././Submission.lean:7:4: bad\n",
            (7, 4),
        ),
        (b"warning: Submission.lean:1:0: unused\nSubmission.lean:5:1: error: x\n", (5, 1)),
        (b"FakeSubmission.lean:9:9: error: decoy\n", None),
        (b"no errors here\n", None),
    ],
)
def test_first_error_position_reads_only_two_integers(
    log: bytes, position: tuple[int, int] | None
) -> None:
    from judge.lean.steps import first_error_position

    assert first_error_position(log, "Submission.lean") == position


def test_stale_job_folders_are_removed_and_fresh_ones_kept(tmp_path: Path) -> None:
    import os

    from judge.lean.steps import remove_stale

    old = tmp_path / "job-old"
    (old / "sub").mkdir(parents=True)
    (old / "sub").chmod(0o500)
    fresh = tmp_path / "job-fresh"
    fresh.mkdir()
    other = tmp_path / "keep-me"
    other.mkdir()
    day_ago = time.time() - 2 * 24 * 3600
    os.utime(old, (day_ago, day_ago))
    os.utime(other, (day_ago, day_ago))

    assert remove_stale(tmp_path, "job-") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job-fresh", "keep-me"]
