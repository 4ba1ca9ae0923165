"""The Lean job sandbox with the real tools: bubblewrap, Debian's `which`, git, env, nested bwrap.

Everything in a Lean job's sandbox that is not Lean runs here for real: the job's sandbox is
built with the pipeline's own functions and command line, as the unprivileged user the judge
runs as (nobody, through setpriv, when the tests run as root), and inside it run the binaries
`lake comparator` runs first (`which bwrap git env` and the kernels) and a NESTED bubblewrap
with Lake's own kind of arguments. None of this is Lean verification: the only toolchain binary
that runs is the FAKE `lake --version`.

Needs bubblewrap >= 0.10 (overlay mounts). Debian bookworm's is 0.8, so the fixture uses
scripts/ensure-bwrap-overlay.sh, which builds Debian trixie's 0.12.0 once (`make test` runs it
too). These tests never skip: without a usable bubblewrap they fail.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import judge
from judge.lean.toolchain import parse_version

from .conftest import FIXTURE

REPO = Path(judge.__file__).resolve().parents[1]
NOBODY = 65534
# bubblewrap itself sets PWD for --chdir.
SANDBOX_ENV = {"PATH", "HOME", "LANG", "LEAN_ABORT_ON_PANIC", "COMPARATOR_BWRAP", "PWD"}


def _has_overlay(bwrap: str) -> bool:
    try:
        out = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=10)
    except OSError:
        return False
    version = parse_version(out.stdout)
    return out.returncode == 0 and version is not None and version >= (0, 10, 0)


def real_bwrap() -> str:
    explicit = os.environ.get("JUDGE_TEST_BWRAP", "").strip()
    if explicit:
        assert _has_overlay(explicit), f"JUDGE_TEST_BWRAP={explicit} is not bubblewrap >= 0.10"
        return explicit
    system = shutil.which("bwrap")
    if system and _has_overlay(system):
        return system
    built = subprocess.run(
        [str(REPO / "scripts" / "ensure-bwrap-overlay.sh")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if built.returncode != 0:
        pytest.fail(f"no bubblewrap >= 0.10 and it could not be built:\n{built.stderr[-2000:]}")
    return built.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def probe() -> Iterator[dict]:
    bwrap = real_bwrap()
    root = Path(tempfile.mkdtemp(prefix="lean-real-tools-"))
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
        command = [sys_python(), str(Path(__file__).with_name("real_tools_probe.py")), str(root)]
        if os.geteuid() == 0:
            # As in the image: the judge is an unprivileged user (root cannot nest, see docs).
            subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(root)], check=True)
            command = [
                "setpriv",
                f"--reuid={NOBODY}",
                f"--regid={NOBODY}",
                "--clear-groups",
                *command,
            ]
        completed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert completed.returncode == 0, completed.stderr[-3000:]
        data = json.loads(completed.stdout)
        data["root"] = str(root)
        data["bwrap"] = bwrap
        yield data
    finally:
        shutil.rmtree(root, ignore_errors=True)


def sys_python() -> str:
    import sys

    return sys.executable


def lines(result: dict) -> list[str]:
    return result["output"].splitlines()


def test_the_canary_passes_in_the_real_job_sandbox(probe: dict) -> None:
    # `lake --version`, `which <bwrap> git env <exporter> <kernels>` and a nested bubblewrap,
    # exactly as every job runs them before building anything.
    assert probe["canary"] == "ok"


def test_which_resolves_every_tool_lake_resolves(probe: dict) -> None:
    toolchain = Path(probe["root"]) / "toolchain"
    assert probe["which"]["exit"] == 0, probe["which"]["output"]
    assert lines(probe["which"]) == [
        probe["bwrap"],
        shutil.which("git", path="/usr/bin:/bin"),
        shutil.which("env", path="/usr/bin:/bin"),
        str(toolchain / "bin" / "leanexport"),
        str(toolchain / "bin" / "leanchecker"),
        str(toolchain / "bin" / "nanoda_bin"),
    ]
    assert probe["tools"][1:3] == ["git", "env"]


def test_without_etc_alternatives_debians_which_is_a_dangling_link(probe: dict) -> None:
    which = Path("/usr/bin/which")
    if which.is_symlink() and os.readlink(which).startswith("/etc/alternatives/"):
        # The defect of issue 12: every `lake comparator` would have exited 2 ("cannot run").
        assert probe["which_without_alternatives"]["exit"] != 0
    assert "/etc/alternatives" in probe["argv"]


def test_git_and_env_run_and_the_environment_is_only_ours(probe: dict) -> None:
    assert probe["git"]["exit"] == 0, probe["git"]["output"]
    assert lines(probe["git"])[0].startswith("git version ")
    assert probe["env"]["exit"] == 0
    names = {line.split("=", 1)[0] for line in lines(probe["env"])}
    assert names == SANDBOX_ENV
    assert (
        dict(line.split("=", 1) for line in lines(probe["env"]))["COMPARATOR_BWRAP"]
        == (probe["bwrap"])
    )
    assert probe["env_i"] == {"exit": 0, "output": ""}


def test_a_nested_bubblewrap_with_lakes_arguments_runs_inside_the_job_sandbox(probe: dict) -> None:
    nested = probe["nested"]
    assert nested["exit"] == 0, nested["output"]
    seen = dict(line.split("=", 1) for line in lines(nested) if "=" in line)
    assert seen["inner_home"].split() == ["/home:", "/root:"]  # both empty: Lake's tmpfs covers
    # and /tmp (where only its HOME and, here, the mount point of the toolchain bound back are)
    assert set(seen["inner_tmp"].split()) <= {"home", Path(probe["root"]).name}
    assert seen["inner_verifier"] == "abbrev Spec : Prop := True"  # the prepared verifier layer
    assert seen["inner_submission"] == "import Verifier"  # the job's own sources layer
    assert seen["inner_ro"] == "yes"  # only .lake is writable in Lake's sandbox
    assert seen["inner_pid1"].split()[0] == probe["bwrap"]  # its own PID namespace
    assert seen["inner_net"].split() in ([], ["lo"])  # no network


def test_a_write_from_the_nested_sandbox_lands_only_in_the_jobs_layer(probe: dict) -> None:
    layers = probe["layers"]
    upper = Path(layers["build_upper"])
    assert (upper / ".lake" / "inner.txt").read_text() == "written by the inner sandbox\n"
    for lower in layers["build_lower"]:
        assert not (Path(lower) / ".lake" / "inner.txt").exists()
    assert probe["step4_nested"]["exit"] == 0, probe["step4_nested"]["output"]
    assert (Path(layers["step4_upper"]) / ".lake" / "step4.txt").read_text() == "step4\n"
    for lower in [*layers["step4_lower"], layers["build_upper"]]:
        assert not (Path(lower) / ".lake" / "step4.txt").exists()


def test_step_4_layers_put_every_trusted_layer_above_the_solutions_artifacts(
    probe: dict,
) -> None:
    reads = probe["step4_reads"]
    assert reads["exit"] == 0, reads["output"]
    # The prepared challenge wins over a forgery in the artifacts layer beneath it; the
    # solution's own artifact (present nowhere else) is visible.
    assert lines(reads) == ["PREPARED challenge", "solution artifact"]
    assert probe["layers"]["step4_lower"][0].endswith("/artifacts")
    # Every step of the solution has the same lower layers: artifacts beneath the trusted ones.
    assert probe["layers"]["step4_lower"] == probe["layers"]["build_lower"]
