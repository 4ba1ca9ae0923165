"""The sandbox's root filesystem binds the interpreter, its stdlib and the four libraries only."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import sys

import numpy
import pytest

import judge.python
from judge.sandbox import bwrap, rootfs
from judge.sandbox.rootfs import (
    HARNESS_MODULES,
    SANDBOX_HARNESS,
    SANDBOX_IMPORTS,
    SANDBOX_SITE,
    build_rootfs,
)

SITE_PACKAGES = pathlib.Path(numpy.__file__).resolve().parent.parent
ALLOWED_PACKAGE_DIRS = {"numpy", "numpy.libs", "scipy", "scipy.libs", "sympy", "mpmath"}


def test_packages_are_bound_one_by_one_into_the_synthetic_site() -> None:
    rootfs = build_rootfs()
    from_site = [b for b in rootfs.binds if b.source.startswith(str(SITE_PACKAGES) + "/")]

    assert {pathlib.Path(b.source).name for b in from_site} == ALLOWED_PACKAGE_DIRS
    assert {b.dest for b in from_site} == {f"{SANDBOX_SITE}/{n}" for n in ALLOWED_PACKAGE_DIRS}


def test_nothing_else_of_the_project_or_the_host_is_bound() -> None:
    rootfs = build_rootfs()
    stdlib = os.path.dirname(os.__file__)
    harness_dir = pathlib.Path(judge.python.__file__).resolve().parent
    project = harness_dir.parents[1]
    harness_dests = {
        SANDBOX_HARNESS: harness_dir / "harness.py",
        **{f"/judge/{name}": harness_dir / name for name in HARNESS_MODULES},
        # The import allowlist the harness loads, and the verifier library (one package).
        SANDBOX_IMPORTS: harness_dir / "imports.py",
        f"{SANDBOX_SITE}/formalmarket_verify": project / "formalmarket_verify",
        # Their bytecode, where the sandbox's import system looks for it.
        **{
            _pyc(f"/judge/{name}"): pathlib.Path(_pyc(str(harness_dir / name)))
            for name in (*HARNESS_MODULES, "imports.py")
        },
    }
    # The harness, its two stdlib-only modules, the allowlist and the library are the only
    # project files inside, each bound alone, wherever the checkout lives.
    harness_binds = [b for b in rootfs.binds if b.dest in harness_dests]
    assert sorted((b.dest, b.source) for b in harness_binds) == sorted(
        (dest, str(source)) for dest, source in harness_dests.items()
    )
    for bind in rootfs.binds:
        source = bind.source
        if bind.dest in harness_dests:
            continue
        allowed = (
            source == os.path.realpath(sys.executable)
            or source == stdlib
            or source.startswith(str(SITE_PACKAGES) + "/")
            or (".so" in pathlib.Path(source).name and "/lib" in source)
        )
        assert allowed, bind
        if not source.startswith(str(SITE_PACKAGES)):
            assert not source.startswith(("/etc", "/home", "/tmp", "/proc", "/sys", "/var"))
        if source.startswith("/work/"):
            assert source.startswith(str(SITE_PACKAGES))
    # The base interpreter's own site-packages is hidden under an empty read-only folder.
    assert rootfs.hidden_dirs == (os.path.join(stdlib, "site-packages"),)


def _pyc(source: str) -> str:
    return importlib.util.cache_from_source(source, optimization="")


def test_the_harness_modules_bytecode_is_bound_fresh_beside_them() -> None:
    rootfs = build_rootfs()
    by_dest = {bind.dest: bind.source for bind in rootfs.binds}

    for name in (*HARNESS_MODULES, "imports.py"):
        source = by_dest[f"/judge/{name}"]
        data = pathlib.Path(by_dest[_pyc(f"/judge/{name}")]).read_bytes()
        # The loader's own check inside the sandbox: a stale .pyc would be compiled again.
        assert data[:4] == importlib.util.MAGIC_NUMBER
        assert int.from_bytes(data[4:8], "little") == 0b11  # hash-based, checked
        assert data[8:16] == importlib.util.source_hash(pathlib.Path(source).read_bytes())


def test_bwrap_command_line_has_every_namespace_and_no_writable_mount() -> None:
    argv = bwrap.build_argv(build_rootfs(), control_fd=7)

    for flag in (
        "--unshare-user",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
    ):
        assert flag in argv
    assert argv[argv.index("--uid") + 1] == "65534"
    assert argv[argv.index("--gid") + 1] == "65534"
    assert "--bind" not in argv and "--dev" not in argv and "--proc" not in argv
    separator = argv.index("--")
    options = argv[:separator]
    remounted = {options[i + 1] for i, arg in enumerate(options) if arg == "--remount-ro"}
    tmpfs = {options[i + 1] for i, arg in enumerate(options) if arg == "--tmpfs"}
    devices = [
        (options[i + 1], options[i + 2]) for i, arg in enumerate(options) if arg == "--dev-bind"
    ]
    assert {"/"} | tmpfs <= remounted
    assert devices == [(d, d) for d in ("/dev/null", "/dev/zero", "/dev/random", "/dev/urandom")]
    assert argv[separator + 1 :] == [
        os.path.realpath(sys.executable), "-s", "-P", "-S", "-B", SANDBOX_HARNESS, "7",
    ]  # fmt: skip
    environment = {
        options[i + 1]: options[i + 2] for i, arg in enumerate(options) if arg == "--setenv"
    }
    assert environment == bwrap.SANDBOX_ENV


def test_a_harness_bytecode_of_another_source_is_written_again(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    harness_dir = pathlib.Path(judge.python.__file__).resolve().parent
    source = tmp_path / "harness_pages.py"
    original = (harness_dir / "harness_pages.py").read_bytes()
    source.write_bytes(original)
    imports = tmp_path / "imports.py"
    imports.write_bytes((harness_dir / "imports.py").read_bytes())
    monkeypatch.setattr(rootfs, "HARNESS_SOURCE", tmp_path / "harness.py")
    monkeypatch.setattr(rootfs, "IMPORTS_SOURCE", imports)
    monkeypatch.setattr(rootfs, "HARNESS_MODULES", ("harness_pages.py",))
    rootfs._harness_bytecode()
    pyc = pathlib.Path(_pyc(str(source)))
    stat = source.stat()
    # A deploy that rewrites the source within the same second, keeping its size and mtime:
    # a timestamp .pyc would still be trusted, the hash is not.
    at = original.index(b'"""') + 3  # a letter of the module's docstring
    edited = original[:at] + (b"X" if original[at : at + 1] != b"X" else b"Y") + original[at + 1 :]
    source.write_bytes(edited)
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert (source.stat().st_size, source.stat().st_mtime_ns) == (stat.st_size, stat.st_mtime_ns)
    assert not rootfs._bytecode_matches(source, pyc)

    binds = rootfs._harness_bytecode()

    assert rootfs._bytecode_matches(source, pyc)
    assert (str(pyc), _pyc("/judge/harness_pages.py")) in [
        (bind.source, bind.dest) for bind in binds
    ]
