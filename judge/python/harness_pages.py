"""What keeps a verdict's fork, first steps and exit cheap: the zygote's heap in huge pages, and
the pre-forked child's rehearsal of the steps every verdict takes.

Standard library only, bound read-only at /judge/harness_pages.py beside the harness.

A fork copies one page-table entry per 4 KiB page of the zygote's ~100 MB heap, and the child's
exit drops them all again: with the heap in 2 MiB pages that is one entry per 2 MiB (a child's
first write to one splits it and copies 4 KiB, as before). Neither glibc's malloc nor CPython's
object arenas ask for huge pages (the host's THP mode is "madvise"; glibc's
``glibc.malloc.hugetlb`` tunable reads /sys, which the sandbox does not have), so the zygote
gathers its heap into huge pages once, after its imports and before its first fork
(``MADV_COLLAPSE``: the kernel copies the pages into 2 MiB ones and changes no mapping's flags).

A child's first touch of a page it shares with the zygote copies that page: the verdict's first
steps (reseeding, the seeded Generator, compiling and running a verifier, reading the job) paid
some 350 such copies, ~1.5 ms. The pre-forked child takes those steps once on fixed data while
it waits for its job (``rehearse``), so the copies are made off the verdict's path; ``reseed``
then gives every generator the job's seed, exactly as in a child that never rehearsed.
"""

import ctypes
import gc
import json
from collections.abc import Callable

_HUGE_PAGE = 1 << 21
_MADV_COLLAPSE = 25
# One object in this many is enough to find the arenas: each 2 MiB holds thousands.
_SAMPLE_EVERY = 64


def collapse_heap() -> int:
    """Gather the 2 MiB blocks that hold the zygote's Python objects into huge pages; return how
    many were gathered. Only blocks inside one anonymous mapping can be (the kernel refuses the
    others, EINVAL), so nothing but the heap is touched. Best effort: a kernel without
    ``MADV_COLLAPSE`` leaves the pages as they are."""
    libc = ctypes.CDLL(None, use_errno=True)
    madvise = libc.madvise
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    blocks = {id(obj) & ~(_HUGE_PAGE - 1) for obj in gc.get_objects()[::_SAMPLE_EVERY]}
    # No MADV_HUGEPAGE: it would mark (and split) the mappings, file-backed ones too, where a
    # sampled object lies in a library's data; MADV_COLLAPSE alone changes no mapping's flags.
    return sum(madvise(block, _HUGE_PAGE, _MADV_COLLAPSE) == 0 for block in sorted(blocks))


_REHEARSAL_JOB = b'{"seed": 0, "token": "0", "verifier": "", "solution": ""}'
_REHEARSAL_SOURCE = '"""Rehearsal."""\ndef verify(solution, rng):\n    return solution == ""\n'


def rehearse(reseed: Callable[[int], None]) -> None:
    """The pre-forked child, before it reads its job: take the first steps of a verdict once on
    fixed data (what it touches is copied now, not during the verdict). Leaves nothing behind
    that ``reseed`` of the job's seed does not set again: no module, no generator, no cycle."""
    import numpy

    json.loads(_REHEARSAL_JOB)
    reseed(0)
    numpy.random.default_rng(0)
    namespace: dict[str, object] = {"__name__": "verifier"}
    code = compile(_REHEARSAL_SOURCE, "<verifier>", "exec", dont_inherit=True)
    exec(code, namespace)  # noqa: S102 -- the harness's own constant source
    verify = namespace["verify"]
    if callable(verify):
        verify("", None)
    # The function and its globals refer to each other: break the cycle, gc has no work.
    namespace.clear()
