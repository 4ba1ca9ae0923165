"""Who the sandbox is and where it starts from: the pool uid, and the verdict's RNG states.

The zygote's first act inside the sandbox is to become the pool uid, with nothing left over;
each child's first act on a job is to reseed every library RNG from the job's seed. Standard
library only (numpy and sympy are imported by the time ``reseed`` runs), bound read-only at
/judge/harness_user.py beside the harness.
"""

import ctypes
import os

_libc = ctypes.CDLL(None, use_errno=True)
_PR_CAPBSET_DROP = 24
_MS_RDONLY, _MS_NOSUID, _MS_REMOUNT, _MS_BIND = 0x1, 0x2, 0x20, 0x1000
_CAP_LAST = 63
DEVICES = ("/dev/null", "/dev/zero", "/dev/random", "/dev/urandom")


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def clear_capabilities() -> None:
    """capset(all zero): the inheritable set survives a switch away from uid 0."""
    header = _CapHeader(0x20080522, 0)
    data = (_CapData * 2)()
    _checked(_libc.syscall(126, ctypes.byref(header), data), "capset")


def has_capabilities() -> bool:
    header = _CapHeader(0x20080522, 0)
    data = (_CapData * 2)()
    _checked(_libc.syscall(125, ctypes.byref(header), data), "capget")
    return any(d.effective or d.permitted or d.inheritable for d in data)


def become_sandbox_user(uid: int) -> None:
    """Run as ``uid`` (a pool uid on the host) with no capability left, for good.

    bwrap gave this process CAP_SYS_ADMIN, CAP_SETPCAP, CAP_SETUID and CAP_SETGID inside the
    sandbox's user namespace only (it maps that uid and host root, so that bwrap could bind
    files root alone may reach). Device nodes become read-only mounts (bwrap's own remount
    would add nodev): chmod/chown on them is EROFS, on top of ownership and seccomp.
    """
    flags = _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID
    for device in DEVICES:
        _checked(_libc.mount(None, device.encode(), None, flags, None), f"remount {device}")
    for cap in range(_CAP_LAST + 1):
        if _libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() != 22:
            raise OSError(ctypes.get_errno(), "PR_CAPBSET_DROP")
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    clear_capabilities()
    if os.getresuid() != (uid, uid, uid) or os.getresgid() != (uid, uid, uid):
        raise OSError("the sandbox user was not set")
    if os.getgroups() or has_capabilities():
        raise OSError("the sandbox user kept groups or capabilities")
    try:
        os.setresuid(0, 0, 0)
    except PermissionError:
        pass
    else:
        raise OSError("the sandbox user could become root again")


def _checked(result: int, what: str) -> None:
    if result != 0:
        raise OSError(ctypes.get_errno(), what)


def reseed(seed: int) -> None:
    """Every library RNG a verifier may use without asking, from this verdict's seed alone.

    The zygote's states are shared by every child it forks, and sympy's generators are seeded
    from OS entropy when a zygote imports it: without this, one seed gave different values in
    two zygotes. numpy's legacy stream takes the FULL seed (above 2**32, as two 32-bit words):
    seeds 5 and 5 + 2**32 must not share it.
    """
    import random

    import numpy
    import sympy.core.random
    from sympy.core.symbol import Dummy

    random.seed(seed)
    if seed < 2**32:
        numpy.random.seed(seed)  # what `numpy.random.seed(seed)` in the verifier gives
    else:
        numpy.random.seed(numpy.array([seed & 0xFFFFFFFF, seed >> 32], dtype=numpy.uint32))
    sympy.core.random.seed(seed)
    # Dummy indices: reseeded, and above the range the zygote's own Dummies were drawn from
    # (10**6..9*10**6 + a few), so that a verdict's Dummy never equals one made at import.
    Dummy._prng.seed(seed)
    Dummy._base_dummy_index = Dummy._prng.randint(10**7, 9 * 10**7)
