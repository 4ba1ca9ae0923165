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


_seed_state: dict[str, int | None] = {"seed": None, "draws": 0}


def _derived_bits(bits: int) -> int:
    """The verdict's n-th stand-in for OS entropy: SHA-256 of (seed, n), ``bits`` wide."""
    import hashlib

    n = _seed_state["draws"] or 0
    _seed_state["draws"] = n + 1
    stream = b""
    block = 0
    while len(stream) * 8 < bits:
        stream += hashlib.sha256(f"{_seed_state['seed']}:{n}:{block}".encode()).digest()
        block += 1
    return int.from_bytes(stream, "big") >> (len(stream) * 8 - bits)


def install_seed_sources() -> None:
    """Generators built without a seed draw from the verdict's seed, not the OS (the zygote,
    once): ``random.Random()``/``random.seed()``, and numpy's ``SeedSequence()`` under
    ``default_rng()``, ``RandomState()``, scipy.stats.qmc's Sobol/LatinHypercube and
    sympy's ``randMatrix`` (a ``random.Random(None)``). Before a verdict: unchanged."""
    import random

    import numpy.random.bit_generator as bit_generator

    original_seed = random.Random.seed
    original_randbits = bit_generator.randbits  # type: ignore[attr-defined]

    def seed(self: random.Random, a: object = None, version: int = 2) -> None:
        if a is None and _seed_state["seed"] is not None:
            a = _derived_bits(128)
        original_seed(self, a, version)  # type: ignore[arg-type]

    def randbits(bits: int) -> int:
        if _seed_state["seed"] is None:
            return int(original_randbits(bits))
        return _derived_bits(bits)

    random.Random.seed = seed  # type: ignore[method-assign]
    random.seed = random._inst.seed
    bit_generator.randbits = randbits  # type: ignore[attr-defined]
    _install_entropy_sources()


def _install_entropy_sources() -> None:
    """``os.urandom``/``os.getrandom`` and what draws from them (``random.SystemRandom``,
    ``secrets``, ``uuid.uuid4``) give the verdict's derived bytes once a seed is set, so that
    a verdict is reproducible from its seed. Before a verdict: the OS's."""
    import operator
    import random

    original_urandom = os.urandom
    original_getrandom = os.getrandom

    def _derived_bytes(size: object) -> bytes:
        count = operator.index(size)  # type: ignore[arg-type]
        if count < 0:
            raise ValueError("negative argument not allowed")
        return _derived_bits(8 * count).to_bytes(count, "big")

    def urandom(size: int, /) -> bytes:
        if _seed_state["seed"] is None:
            return original_urandom(size)
        return _derived_bytes(size)

    def getrandom(size: int, flags: int = 0) -> bytes:
        if _seed_state["seed"] is None:
            return original_getrandom(size, flags)
        return _derived_bytes(size)

    os.urandom = urandom
    os.getrandom = getrandom
    random._urandom = urandom  # type: ignore[attr-defined]  # SystemRandom, secrets


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

    _seed_state["seed"], _seed_state["draws"] = seed, 0
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
