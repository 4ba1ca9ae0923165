"""The bubblewrap command line that starts one zygote."""

from __future__ import annotations

import os
import shutil

from judge.sandbox.errors import SandboxUnavailable
from judge.sandbox.rootfs import SANDBOX_HARNESS, RootFs

# The unprivileged identity inside the sandbox. We run bwrap as root on this host; without
# --uid/--gid bwrap keeps almost every capability (research brief §5).
SANDBOX_UID = 65534
SANDBOX_GID = 65534

# The only environment the zygote (and so every child) ever sees. Environment variables of a
# parent are visible to its children, so nothing of the worker's environment may pass.
SANDBOX_ENV: dict[str, str] = {
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "PYTHONHASHSEED": "0",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PATH": "/nonexistent",
    "HOME": "/nonexistent",
}


SANDBOX_DEVICES = ("/dev/null", "/dev/zero", "/dev/random", "/dev/urandom")


def find_bwrap() -> str:
    path = shutil.which("bwrap") or ("/usr/bin/bwrap" if os.path.exists("/usr/bin/bwrap") else None)
    if path is None:
        raise SandboxUnavailable(
            "bubblewrap is not installed: the Python judge refuses to run verifiers without it. "
            "Install it with `apt-get install -y bubblewrap` (Debian package `bubblewrap`)."
        )
    return path


def build_argv(rootfs: RootFs, control_fd: int) -> list[str]:
    """bwrap argv for a zygote that talks to the host on ``control_fd`` (inherited)."""
    argv = [
        find_bwrap(),
        "--unshare-user",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup",
        "--uid",
        str(SANDBOX_UID),
        "--gid",
        str(SANDBOX_GID),
        "--hostname",
        "sandbox",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--cap-drop",
        "ALL",
    ]
    for key, value in SANDBOX_ENV.items():
        argv += ["--setenv", key, value]
    for bind in rootfs.binds:
        argv += ["--ro-bind", bind.source, bind.dest]
    for hidden in rootfs.hidden_dirs:
        # An empty, read-only directory over the base interpreter's site-packages.
        argv += ["--tmpfs", hidden, "--remount-ro", hidden]
    # Four device nodes and nothing else: bwrap's --dev would add /dev/shm (writable unless
    # remounted), /dev/pts with ptmx (ptys) and /dev/tty. The folder is part of the root,
    # which is remounted read-only below.
    argv += ["--dir", "/dev"]
    for device in SANDBOX_DEVICES:
        argv += ["--dev-bind", device, device]
    argv += [
        "--chdir",
        "/",
        # bwrap's own root is a tmpfs: make it read-only too. No writable directory anywhere.
        "--remount-ro",
        "/",
        "--",
        rootfs.interpreter,
        "-I",
        "-S",
        "-B",
        SANDBOX_HARNESS,
        str(control_fd),
    ]
    return argv
