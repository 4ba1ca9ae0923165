"""listmount/statmount listed the host's mounts with their source paths."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: mount listing refused: [1, 1]
import ctypes
import struct

libc = ctypes.CDLL(None, use_errno=True)


def attack():
    # struct mnt_id_req {u32 size; u32 spare; u64 mnt_id; u64 param; u64 mnt_ns_id}
    request = ctypes.create_string_buffer(struct.pack("<IIQQQ", 32, 0, 0xFFFFFFFFFFFFFFFF, 0, 0))
    ids = (ctypes.c_uint64 * 64)()
    errors = []
    if libc.syscall(458, request, ids, 64, 0) >= 0:  # listmount
        return True
    errors.append(ctypes.get_errno())
    buffer = ctypes.create_string_buffer(4096)
    if libc.syscall(457, request, buffer, 4096, 0) >= 0:  # statmount
        return True
    errors.append(ctypes.get_errno())
    raise OSError(f"mount listing refused: {errors}")


# At import time, before the guard is armed (ctypes is refused inside verify): only the kernel
# and the seccomp filter stand between this and the host.
try:
    OUTCOME = attack()
except Exception as error:
    OUTCOME = error


def verify(solution, rng):
    if isinstance(OUTCOME, Exception):
        raise OUTCOME
    return OUTCOME
