"""The bubblewrap command line that starts one zygote."""

from __future__ import annotations

import os
import posixpath
import shutil

from judge.sandbox.errors import SandboxUnavailable
from judge.sandbox.identity import SANDBOX_INNER_UID
from judge.sandbox.rootfs import SANDBOX_HARNESS, RootFs

# The unprivileged identity inside the sandbox (a pool uid on the host, see identity.py).
SANDBOX_UID = SANDBOX_INNER_UID
SANDBOX_GID = SANDBOX_INNER_UID
# What the harness needs, inside the sandbox's user namespace only and before it reads
# anything, to remount the device nodes read-only, drop the bounding set and become the pool
# uid (judge/python/harness_user.py). It holds none of them once it has.
SET_UP_CAPABILITIES = ("CAP_SYS_ADMIN", "CAP_SETPCAP", "CAP_SETUID", "CAP_SETGID")

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
# /dev/random and /dev/urandom are not the host's nodes: a write open of those reached the
# host's input pool. Each zygote gets a private, read-only file under each name instead
# (``--ro-bind-data``): reads work (the libraries draw from getrandom anyway), write opens
# fail with EROFS, and nothing is shared with the host. The bytes are a fixed SHA-256 stream,
# the same in every zygote, so a verdict that reads them is reproducible from its seed
# (``judge.sandbox.entropy``).
ENTROPY_DEVICES = ("/dev/random", "/dev/urandom")
ENTROPY_BYTES = 256 * 1024


def find_bwrap() -> str:
    path = shutil.which("bwrap") or ("/usr/bin/bwrap" if os.path.exists("/usr/bin/bwrap") else None)
    if path is None:
        raise SandboxUnavailable(
            "bubblewrap is not installed: the Python judge refuses to run verifiers without it. "
            "Install it with `apt-get install -y bubblewrap` (Debian package `bubblewrap`)."
        )
    return path


def _parent_folders(paths: list[str]) -> list[str]:
    """Every folder above the given paths, parents before children."""
    folders: set[str] = set()
    for path in paths:
        parent = posixpath.dirname(posixpath.normpath(path))
        while parent not in ("/", ""):
            folders.add(parent)
            parent = posixpath.dirname(parent)
    return sorted(folders, key=lambda folder: (folder.count("/"), folder))


def build_argv(
    rootfs: RootFs,
    control_fd: int,
    userns_fd: int | None = None,
    entropy_fds: tuple[int, ...] = (),
) -> list[str]:
    """bwrap argv for a zygote that talks to the host on ``control_fd`` (inherited).

    ``entropy_fds``: one readable fd per ``ENTROPY_DEVICES`` entry, whose bytes become that
    node's content (empty: the host's nodes, for callers that test older layouts).

    ``userns_fd``: a user namespace mapping host root and the pool uid (identity.py); bwrap
    sets up as root in it and the harness switches to the pool uid. None (a worker that is
    not root): bwrap's own user namespace, the sandbox being the worker's uid.
    """
    if userns_fd is not None:
        identity = ["--userns", str(userns_fd), "--uid", "0", "--gid", "0", "--cap-drop", "ALL"]
        for capability in SET_UP_CAPABILITIES:
            identity += ["--cap-add", capability]
    else:
        identity = ["--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_GID)]
        identity += ["--cap-drop", "ALL"]
    argv = [
        find_bwrap(),
        *identity,
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup",
        "--hostname",
        "sandbox",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
    ]
    for key, value in SANDBOX_ENV.items():
        argv += ["--setenv", key, value]
    # bwrap, set up as root in the mapped namespace, would create the folders leading to each
    # bind as 0700 root: the sandbox user could not reach the interpreter. Create them first.
    for folder in _parent_folders([bind.dest for bind in rootfs.binds]):
        argv += ["--perms", "0755", "--dir", folder]
    for bind in rootfs.binds:
        argv += ["--ro-bind", bind.source, bind.dest]
    for hidden in rootfs.hidden_dirs:
        # An empty, read-only directory over the base interpreter's site-packages.
        argv += ["--tmpfs", hidden, "--remount-ro", hidden]
    # Four device nodes and nothing else: bwrap's --dev would add /dev/shm (writable unless
    # remounted), /dev/pts with ptmx (ptys) and /dev/tty. The folder is part of the root,
    # which is remounted read-only below; the nodes themselves are remounted read-only by the
    # harness (bwrap's --remount-ro would add nodev and make them unusable).
    argv += ["--dir", "/dev"]
    private = dict(zip(ENTROPY_DEVICES, entropy_fds, strict=False))
    for device in SANDBOX_DEVICES:
        if device in private:
            argv += ["--perms", "0444", "--ro-bind-data", str(private[device]), device]
        else:
            argv += ["--dev-bind", device, device]
    argv += [
        "--chdir",
        "/",
        # bwrap's own root is a tmpfs: make it read-only too. No writable directory anywhere.
        "--remount-ro",
        "/",
        "--",
        rootfs.interpreter,
        # -I without its -E: PYTHONHASHSEED (SANDBOX_ENV) must apply; the environment is ours.
        "-s",
        "-P",
        "-S",
        "-B",
        SANDBOX_HARNESS,
        str(control_fd),
    ]
    return argv
