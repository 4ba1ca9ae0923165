"""The private, fixed content of a zygote's /dev/random and /dev/urandom (host side).

Each zygote gets a read-only file under each name (``bwrap --ro-bind-data``), never the host's
nodes: a write open of those reached the host's input pool.
"""

from __future__ import annotations

import functools
import hashlib
import os

from judge.sandbox.bwrap import ENTROPY_BYTES


@functools.cache
def entropy_bytes(device: str) -> bytes:
    """The bytes of ``device`` in every zygote: SHA-256 of (the device's name, a counter).

    The same in every zygote on purpose (red team 3): with fresh random bytes per zygote, a
    verifier that read ``/dev/urandom`` gave a different detail for the same seed in two fresh
    zygotes. Nothing in the sandbox needs these to be secret (the verdict token is made on the
    host; ``os.urandom`` and what draws from it give the verdict's seed-derived bytes), and a
    read-only file that every verdict sees the same is no channel."""
    blocks = (
        hashlib.sha256(f"formalmarket-judge {device} {n}".encode()).digest()
        for n in range(-(-ENTROPY_BYTES // 32))
    )
    return b"".join(blocks)[:ENTROPY_BYTES]


def entropy_fd(device: str) -> int:
    """A sealed-for-reading memfd of the fixed bytes of a zygote's private ``device``."""
    fd = os.memfd_create(f"fmjudge{device.replace('/', '-')}", os.MFD_CLOEXEC)
    data = memoryview(entropy_bytes(device))
    while data:
        data = data[os.write(fd, data) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
