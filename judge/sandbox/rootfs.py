"""The sandbox's root filesystem: the interpreter, its stdlib and the four allowed libraries.

Everything is bound read-only on top of bubblewrap's empty root. Nothing else of the host
appears: not the project's virtualenv or source, not /etc, /home, /tmp, /work or the caller's
working directory. Shared libraries are found with one ``ldd`` run over every ELF file we bind,
and each is bound file by file at the path the dynamic loader looks for it.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import logging
import os
import pathlib
import py_compile
import subprocess  # noqa: S404 -- runs ldd on trusted files we are about to bind
import sys
import sysconfig

from judge.sandbox.errors import SandboxUnavailable

logger = logging.getLogger(__name__)

# Where the allowed packages appear inside the sandbox (a synthetic site-packages).
SANDBOX_SITE = "/judge/site"
# Where the in-sandbox harness program appears.
SANDBOX_HARNESS = "/judge/harness.py"
HARNESS_SOURCE = pathlib.Path(__file__).resolve().parent.parent / "python" / "harness.py"
# Modules the harness imports from its own folder (stdlib only, like the harness).
HARNESS_MODULES: tuple[str, ...] = (
    "harness_guard.py",
    "harness_audit.py",
    "harness_admission.py",
    "harness_lambdify.py",
    "harness_child.py",
    "harness_entries.py",
    "harness_factories.py",
    "harness_library.py",
    "harness_namespaces.py",
    "harness_pages.py",
    "harness_sweep.py",
    "harness_user.py",
)
# The import allowlist, loaded by the harness from beside itself.
SANDBOX_IMPORTS = "/judge/imports.py"
IMPORTS_SOURCE = HARNESS_SOURCE.with_name("imports.py")
# The project's folder, where the verifier library (formalmarket_verify) lives.
PROJECT_DIR = pathlib.Path(__file__).resolve().parent.parent.parent


@dataclasses.dataclass(frozen=True, slots=True)
class Bind:
    source: str
    dest: str


@dataclasses.dataclass(frozen=True, slots=True)
class RootFs:
    """What to bind into the sandbox, and the interpreter path to run inside it."""

    interpreter: str
    binds: tuple[Bind, ...]
    # Directories bound above that must look empty inside (e.g. the base site-packages).
    hidden_dirs: tuple[str, ...]
    site_dir: str = SANDBOX_SITE


def _package_dirs(site_packages: pathlib.Path) -> list[pathlib.Path]:
    """The allowed packages plus their vendored shared-library folders (numpy.libs, ...)."""
    # Imported here: judge.python's package imports this module (runner -> sandbox).
    from judge.python.imports import THIRD_PARTY_PACKAGES

    found: list[pathlib.Path] = []
    for name in THIRD_PARTY_PACKAGES:
        package = site_packages / name
        if not package.is_dir():
            raise SandboxUnavailable(
                f"allowed package {name!r} is not installed in {site_packages}"
            )
        found.append(package)
        libs = site_packages / f"{name}.libs"
        if libs.is_dir():
            found.append(libs)
    return found


def _find_site_packages() -> pathlib.Path:
    spec = importlib.util.find_spec("numpy")
    if spec is None or spec.origin is None:
        raise SandboxUnavailable(
            "numpy is not installed: the sandbox needs numpy, scipy, sympy, mpmath"
        )
    return pathlib.Path(spec.origin).resolve().parent.parent


def _elf_files(roots: list[pathlib.Path]) -> list[str]:
    files: list[str] = []
    for root in roots:
        if root.is_file():
            files.append(str(root))
            continue
        for path in root.rglob("*.so*"):
            # Tk's extension would pull in X11; tkinter is refused by the import allowlist.
            if path.is_file() and not path.is_symlink() and not path.name.startswith("_tkinter"):
                files.append(str(path))
    return files


def _shared_libraries(elf_files: list[str]) -> set[str]:
    """Absolute paths (as the loader resolves them) of every library the files need."""
    needed: set[str] = set()
    # ldd takes many files at once; chunk to stay below ARG_MAX.
    for start in range(0, len(elf_files), 400):
        chunk = elf_files[start : start + 400]
        result = subprocess.run(  # noqa: S603
            ["/usr/bin/ldd", *chunk],
            capture_output=True,
            text=True,
            check=False,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},
        )
        for line in result.stdout.splitlines():
            line = line.strip()
            if line.endswith(":") or "not a dynamic" in line:
                continue  # a per-file header of multi-file ldd output
            if "=>" in line:
                target = line.split("=>", 1)[1].strip().split(" (", 1)[0].strip()
            else:
                target = line.split(" (", 1)[0].strip()
            if target.startswith("/"):
                needed.add(target)
    return needed


def _bytecode_dirs() -> list[pathlib.Path]:
    """The Python sources the zygote imports from read-only binds, outside the stdlib."""
    from judge.python.imports import VERIFIER_LIBRARY

    packages = _package_dirs(_find_site_packages())
    return [*(p for p in packages if not p.name.endswith(".libs")), PROJECT_DIR / VERIFIER_LIBRARY]


def compile_bytecode() -> int:
    """Write the missing or stale ``.pyc`` of the sandbox's packages; return how many.

    The sandbox binds the packages read-only, so a zygote can never save the bytecode it
    compiles: without ``__pycache__`` on the host every zygote compiles numpy, scipy, sympy
    and mpmath from source (~3,000 modules, most of a cold start; bench/cold_start.py). An
    installer that writes none (uv without ``--compile-bytecode``) leaves it to this, run
    once per worker process before its first zygote. Timestamp-checked ``.pyc`` only (a
    SOURCE_DATE_EPOCH would make py_compile pick hash-checked ones, re-hashed at each
    import). A read-only install is left as it is, with a warning.
    """
    written = 0
    for directory in _bytecode_dirs():
        for source in sorted(directory.rglob("*.py")):
            target = pathlib.Path(importlib.util.cache_from_source(str(source)))
            try:
                if target.stat().st_mtime >= source.stat().st_mtime:
                    continue
            except OSError:
                pass
            try:
                py_compile.compile(
                    str(source),
                    cfile=str(target),
                    doraise=True,
                    invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP,
                )
            except py_compile.PyCompileError:
                continue  # a test file written for another Python: never imported here
            except OSError as exc:
                logger.warning(
                    "cannot write bytecode under %s (%s): every zygote compiles it again; "
                    "install the packages with their bytecode (pip, or uv --compile-bytecode)",
                    directory,
                    exc,
                )
                break
            written += 1
    return written


def _bytecode_matches(source: pathlib.Path, target: pathlib.Path) -> bool:
    """Whether ``target`` is the hash-checked ``.pyc`` of ``source`` as it is now: magic, the
    checked-hash flags and the source's hash, what the loader inside the sandbox checks too."""
    try:
        with target.open("rb") as handle:
            header = handle.read(16)
        data = source.read_bytes()
    except OSError:
        return False
    return header == (
        importlib.util.MAGIC_NUMBER
        + (0b11).to_bytes(4, "little")  # hash-based, checked against the source
        + importlib.util.source_hash(data)
    )


def _harness_bytecode() -> list[Bind]:
    """The ``.pyc`` of the modules the harness imports from its folder, each bound where the
    sandbox's import system looks for it (``/judge/__pycache__/``); without them every zygote
    compiled ~2,800 lines of harness at its start (~15 ms of CPU). Written here unless it is
    what the loader would use; a module whose bytecode cannot be written is compiled at each
    start, as before.

    Hash-checked, not timestamp-checked: these modules are the run-time rule itself, and a
    timestamp ``.pyc`` is trusted when a source rewritten within the same second keeps its
    size (a deploy); the sandbox's loader hashes each source (~2,800 lines: microseconds) and
    compiles it afresh when the hash differs."""
    binds: list[Bind] = []
    sandbox_dir = pathlib.PurePosixPath(SANDBOX_HARNESS).parent
    for source in (*(HARNESS_SOURCE.with_name(name) for name in HARNESS_MODULES), IMPORTS_SOURCE):
        # The plain .pyc (the sandbox's interpreter runs without -O, whatever the worker's flags).
        target = pathlib.Path(importlib.util.cache_from_source(str(source), optimization=""))
        try:
            if not _bytecode_matches(source, target):
                py_compile.compile(
                    str(source),
                    cfile=str(target),
                    doraise=True,
                    optimize=0,
                    invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH,
                )
        except (OSError, py_compile.PyCompileError) as exc:
            logger.warning("cannot write the bytecode of %s (%s)", source.name, exc)
            continue
        dest = importlib.util.cache_from_source(str(sandbox_dir / source.name), optimization="")
        binds.append(Bind(str(target), dest))
    return binds


@functools.lru_cache(maxsize=1)
def build_rootfs() -> RootFs:
    """Compute the bind list once per process (one ldd run, ~1 s), bytecode compiled."""
    if not os.path.exists("/usr/bin/ldd"):
        raise SandboxUnavailable("ldd is missing; cannot compute the sandbox's shared libraries")
    interpreter = os.path.realpath(sys.executable)
    base = pathlib.Path(sys.base_prefix).resolve()
    stdlib = pathlib.Path(sysconfig.get_paths()["stdlib"]).resolve()
    # Interpreter-specific stdlib of the base install (not the venv's).
    if not (stdlib / "os.py").is_file():
        raise SandboxUnavailable(f"the standard library was not found at {stdlib}")
    site_packages = _find_site_packages()
    packages = _package_dirs(site_packages)
    # Once per process, before its first zygote: ~0.3 s when everything is compiled already.
    compile_bytecode()

    binds: list[Bind] = [Bind(interpreter, interpreter), Bind(str(stdlib), str(stdlib))]
    for package in packages:
        binds.append(Bind(str(package), f"{SANDBOX_SITE}/{package.name}"))
    if not HARNESS_SOURCE.is_file():
        raise SandboxUnavailable(f"the harness {HARNESS_SOURCE} is missing")
    binds.append(Bind(str(HARNESS_SOURCE), SANDBOX_HARNESS))
    for name in HARNESS_MODULES:
        module = HARNESS_SOURCE.with_name(name)
        if not module.is_file():
            raise SandboxUnavailable(f"the harness module {name} is missing")
        binds.append(Bind(str(module), str(pathlib.PurePosixPath(SANDBOX_HARNESS).with_name(name))))
    from judge.python.imports import VERIFIER_LIBRARY

    library_dir = PROJECT_DIR / VERIFIER_LIBRARY
    if not IMPORTS_SOURCE.is_file() or not (library_dir / "__init__.py").is_file():
        raise SandboxUnavailable("the import allowlist or the verifier library is missing")
    binds.append(Bind(str(IMPORTS_SOURCE), SANDBOX_IMPORTS))
    binds.extend(_harness_bytecode())
    binds.append(Bind(str(library_dir), f"{SANDBOX_SITE}/{VERIFIER_LIBRARY}"))

    elf = _elf_files([pathlib.Path(interpreter), stdlib / "lib-dynload", *packages])
    bound_dirs = [str(stdlib), *(str(p) for p in packages)]
    for library in sorted(_shared_libraries(elf)):
        real = os.path.realpath(library)
        # Libraries inside an already bound folder (numpy.libs, ...) come with it.
        if any(real.startswith(d + "/") for d in bound_dirs):
            continue
        binds.append(Bind(real, os.path.normpath(library)))
        # Also bind the library where the loader's default search path finds it after
        # symlinks (/lib -> /usr/lib on merged-/usr hosts).
        if os.path.normpath(library) != real:
            binds.append(Bind(real, real))

    hidden = [str(stdlib / "site-packages")] if (stdlib / "site-packages").is_dir() else []
    del base
    # Deduplicate by destination, keep order.
    seen: set[str] = set()
    unique: list[Bind] = []
    for bind in binds:
        if bind.dest not in seen:
            seen.add(bind.dest)
            unique.append(bind)
    return RootFs(interpreter=interpreter, binds=tuple(unique), hidden_dirs=tuple(hidden))
