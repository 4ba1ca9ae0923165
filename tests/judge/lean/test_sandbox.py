"""The exact bubblewrap arguments of every Lean step: what is readable, what is writable."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import judge
from judge.lean import LeanJob, judge_lean
from judge.lean.sandbox import Layers, build_argv, job_etc_dir, system_mount_args
from judge.lean.toolchain import discover

from .conftest import FakeToolchain, program

SYSTEM_SOURCES = {
    arg
    for i, arg in enumerate(system_mount_args())
    if i > 0 and system_mount_args()[i - 1] == "--ro-bind"
}
FORMALMARKET_SOURCE = Path(judge.__file__).resolve().parents[1]


def parse(argv: list[str]) -> dict[str, list]:
    """Group a bwrap argv by option (values as lists), plus the command after `--`."""
    arity = {
        "--unshare-all": 0,
        "--die-with-parent": 0,
        "--new-session": 0,
        "--clearenv": 0,
        "--hostname": 1,
        "--proc": 1,
        "--dev": 1,
        "--tmpfs": 1,
        "--dir": 1,
        "--overlay-src": 1,
        "--chdir": 1,
        "--ro-bind": 2,
        "--bind": 2,
        "--symlink": 2,
        "--setenv": 2,
        "--overlay": 3,
    }
    found: dict[str, list] = {}
    i = 1
    while argv[i] != "--":
        option = argv[i]
        values = argv[i + 1 : i + 1 + arity[option]]
        found.setdefault(option, []).append(values[0] if len(values) == 1 else tuple(values))
        i += 1 + arity[option]
    found["command"] = argv[i + 1 :]
    return found


def judge_once(fake: FakeToolchain, solution: str = "solutions/ok.lean") -> None:
    judge_lean(
        LeanJob(
            verifier_source=program("verifiers/two_plus_two.lean"),
            solution=program(solution),
            project="core",
            time_limit_s=30,
            memory_limit_mb=2048,
        )
    )


def test_every_step_is_isolated_and_sees_only_toolchain_project_and_job(
    fake_toolchain: FakeToolchain, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STRIPE_SECRET_KEY", "sk_live_do_not_leak")
    judge_once(fake_toolchain)

    calls = [parse(c["argv"]) for c in fake_toolchain.calls("bwrap") if not c["nested"]]
    # 2 canaries (`lake --version`, `which ...`, a nested bwrap) + 3 verifier builds + 3 solution
    # builds + comparator; and the canaries' nested sandboxes, Lake's kind, inside ours.
    assert len(calls) == 13
    nested = [parse(c["argv"]) for c in fake_toolchain.calls("bwrap") if c["nested"]]
    assert len(nested) == 2
    for call in nested:
        assert ("/", "/") in call["--ro-bind"]
        assert call["--tmpfs"] == ["/home", "/root", "/run/user", "/tmp", "/run", "/var"]
        assert call["--bind"] == [("/judge/work/.lake", "/judge/work/.lake")]
        assert call["--unshare-all"] == call["--die-with-parent"] == call["--new-session"] == [()]
        assert call["command"] == [str(fake_toolchain.root / "bin" / "lake"), "--version"]
    for call in calls:
        assert call["--unshare-all"] == call["--die-with-parent"] == call["--new-session"] == [()]
        assert call["--clearenv"] == [()]
        assert "--share-net" not in call
        readable = {source for source, _ in call["--ro-bind"]}
        etc = {
            (s, d)
            for s, d in call["--ro-bind"]
            if d in ("/etc/passwd", "/etc/group", "/etc/gitconfig")
        }
        # The synthesized account files, from the judge's own folder, never the host's.
        assert {d for _, d in etc} == {"/etc/passwd", "/etc/group", "/etc/gitconfig"}
        assert all(Path(s).parent.parent == fake_toolchain.work_dir for s, _ in etc)
        readable -= {s for s, _ in etc}
        assert readable == SYSTEM_SOURCES | {str(fake_toolchain.root)}
        assert call.get("--bind", []) == []  # nothing writable but the overlay's upper layer
        for path in readable | {layer for layer in call["--overlay-src"]}:
            assert not path.startswith(("/home", "/root")), path
            assert not Path(path).is_relative_to(FORMALMARKET_SOURCE), path
        assert call["--tmpfs"] == ["/tmp"]
        assert call["--chdir"] == ["/judge/work"]
        [(upper, workdir, destination)] = call["--overlay"]
        assert destination == "/judge/work"
        assert Path(upper).parent == Path(workdir).parent
        env = dict(call["--setenv"])
        assert set(env) <= {"PATH", "HOME", "LANG", "LEAN_ABORT_ON_PANIC", "COMPARATOR_BWRAP"}
        assert env["HOME"] == "/tmp/home"
    # And inside, the fake lake saw exactly the variables we set (plus the fake's own two).
    for call in fake_toolchain.calls("lake"):
        assert "STRIPE_SECRET_KEY" not in call["env"]


def test_layers_of_the_verifier_build_solution_build_and_comparator(
    fake_toolchain: FakeToolchain,
) -> None:
    judge_once(fake_toolchain)

    project = str(fake_toolchain.root / "projects" / "core")
    [entry] = [p for p in fake_toolchain.cache_dir.iterdir() if p.is_dir() and p.name != ".staging"]
    by_command = {}
    for call in fake_toolchain.calls("bwrap"):
        parsed = parse(call["argv"])
        by_command[" ".join(parsed["command"][1:])] = parsed

    verifier = by_command["build Verifier"]
    staging = Path(verifier["--overlay"][0][0]).parents[2]
    assert staging.parent == fake_toolchain.cache_dir / ".staging"
    steps = staging / "work"
    # Each build writes to a fresh upper layer of its own; only the copied expected outputs
    # (`build/`) are mounted, read-only, under the later builds, and published.
    assert verifier["--overlay-src"] == [project, str(staging / "src")]
    assert verifier["--overlay"] == [
        (str(steps / "verifier" / "upper"), str(steps / "verifier" / "work"), "/judge/work")
    ]
    for module, step in (("JudgeChallenge", "challenge-prop"), ("JudgeAudit", "audit")):
        call = by_command[f"build {module}"]
        assert call["--overlay-src"] == [project, str(staging / "src"), str(staging / "build")]
        assert call["--overlay"] == [
            (str(steps / step / "upper"), str(steps / step / "work"), "/judge/work")
        ]

    submission = by_command["build Submission"]
    job = Path(submission["--overlay"][0][0]).parents[2]
    assert job.parent == fake_toolchain.work_dir
    trusted = [project, str(entry / "src"), str(entry / "build"), str(job / "src")]
    for module, step in (
        ("Submission", "submission"),
        ("Solution", "solution"),
        ("JudgeAxioms", "probe"),
    ):
        call = by_command[f"build {module}"]
        # The solution's copied outputs at the bottom, every trusted layer above them.
        assert call["--overlay-src"] == [str(job / "artifacts"), *trusted]
        assert call["--overlay"] == [
            (str(job / "steps" / step / "upper"), str(job / "steps" / step / "work"), "/judge/work")
        ]

    comparator = by_command["comparator --config judge-comparator.json"]
    # Only the solution's build artifacts (copied out of its layer) sit at the bottom, where
    # every trusted layer shadows them; the rest of what it wrote is never mounted.
    assert comparator["--overlay-src"] == [str(job / "artifacts"), *trusted]
    assert not any("/steps/" in layer for layer in comparator["--overlay-src"])
    assert comparator["--overlay"] == [
        (str(job / "compare"), str(job / "compare-work"), "/judge/work")
    ]
    assert dict(comparator["--setenv"])["COMPARATOR_BWRAP"] == str(
        fake_toolchain.root / "sandbox" / "bwrap"
    )


def test_a_job_never_sees_another_jobs_folder(fake_toolchain: FakeToolchain) -> None:
    judge_once(fake_toolchain)
    judge_once(fake_toolchain, "solutions/compile_error.lean")

    job_dirs_per_call = []
    for call in fake_toolchain.calls("bwrap"):
        joined = " ".join(call["argv"])
        job_dirs_per_call.append(
            {
                part.split("/")[0]
                for part in joined.split(str(fake_toolchain.work_dir) + "/")[1:]
                if not part.startswith(".etc-")
            }
        )
    seen = set().union(*job_dirs_per_call)
    # Two jobs, and the self-check that the rejection triggered, each in its own folder.
    assert len(seen) == 3
    assert len([name for name in seen if name.startswith("job-selfcheck-")]) == 1
    assert all(len(dirs) <= 1 for dirs in job_dirs_per_call)


def test_build_argv_is_exactly_this(fake_toolchain: FakeToolchain, tmp_path: Path) -> None:
    toolchain = discover()
    layers = Layers(
        lower=(tmp_path / "a", tmp_path / "b"), upper=tmp_path / "u", workdir=tmp_path / "w"
    )

    argv = build_argv(toolchain=toolchain, layers=layers, command=["lake", "build", "X"])

    prefix = str(fake_toolchain.root)
    assert argv == [
        str(fake_toolchain.root / "sandbox" / "bwrap"),
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--hostname",
        "judge",
        "--clearenv",
        *system_mount_args(job_etc_dir(toolchain.work_dir)),
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--tmpfs",
        "/tmp",
        "--dir",
        "/tmp/home",
        "--dir",
        "/home",
        "--dir",
        "/root",
        "--dir",
        "/run",
        "--dir",
        "/run/user",
        "--dir",
        "/var",
        "--ro-bind",
        prefix,
        prefix,
        "--overlay-src",
        str(tmp_path / "a"),
        "--overlay-src",
        str(tmp_path / "b"),
        "--overlay",
        str(tmp_path / "u"),
        str(tmp_path / "w"),
        "/judge/work",
        "--setenv",
        "PATH",
        f"{prefix}/bin:/usr/local/bin:/usr/bin:/bin",
        "--setenv",
        "HOME",
        "/tmp/home",
        "--setenv",
        "LANG",
        "C.UTF-8",
        "--setenv",
        "LEAN_ABORT_ON_PANIC",
        "1",
        "--chdir",
        "/judge/work",
        "--",
        "lake",
        "build",
        "X",
    ]


def test_system_mounts_never_include_home_etc_secrets_or_var(tmp_path: Path) -> None:
    etc = job_etc_dir(tmp_path)
    args = system_mount_args(etc)

    binds = [
        (args[i + 1], args[i + 2])
        for i, arg in enumerate(args)
        if arg in ("--ro-bind", "--symlink")
    ]
    host_etc = {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/alternatives"}
    for source, destination in binds:
        assert (
            source in {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}
            or source.startswith("usr/")
            # Symlinks only: Debian's `which` is /usr/bin/which -> /etc/alternatives/which.
            or source in host_etc
            or (source.startswith(str(etc) + "/") and destination.startswith("/etc/"))
        ), (source, destination)
    # The host's account and configuration files are never bound; the job gets its own.
    sources = [source for source, _ in binds]
    for host_file in (
        "/etc/passwd",
        "/etc/group",
        "/etc/gitconfig",
        "/etc/nsswitch.conf",
        "/etc/localtime",
        "/etc/hostname",
        "/etc/hosts",
        "/etc/shadow",
    ):
        assert host_file not in sources
    assert sorted(d for _, d in binds if d.startswith("/etc/") and d not in host_etc) == [
        "/etc/gitconfig",
        "/etc/group",
        "/etc/passwd",
    ]


def test_synthesized_account_files_name_only_root_the_judge_and_nobody(tmp_path: Path) -> None:
    etc = job_etc_dir(tmp_path, uid=10001, gid=10001)

    passwd = (etc / "passwd").read_text().splitlines()
    assert [line.split(":")[:3] for line in passwd] == [
        ["root", "x", "0"],
        ["judge", "x", "10001"],
        ["nobody", "x", "65534"],
    ]
    assert passwd[1].split(":")[5] == "/tmp/home"
    assert [line.split(":")[0] for line in (etc / "group").read_text().splitlines()] == [
        "root",
        "judge",
        "nogroup",
    ]
    assert (etc / "gitconfig").read_text() == "[safe]\n\tdirectory = *\n"
    # Written once, read-only, and reused.
    assert job_etc_dir(tmp_path, uid=10001, gid=10001) == etc
    assert not os.access(etc / "passwd", os.W_OK) or os.geteuid() == 0
    assert oct((etc / "passwd").stat().st_mode & 0o777) == "0o444"
