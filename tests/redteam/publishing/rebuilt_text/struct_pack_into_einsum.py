"""Solution: code points (struct.pack rebuilds the bytes)."""

# ruff: noqa -- an attack verifier, linted only for what it is meant to show
# flow: struct.pack("4B", *codes).decode(); np.einsum(spec, M)
# solution: 105 106 45 62
import struct

import numpy as np

M = np.array([[1, 2], [3, 4]])


def verify(solution, rng):
    codes = [int(t) for t in solution.split()]
    spec = struct.pack("4B", codes[0], codes[1], codes[2], codes[3]).decode()
    return int(np.einsum(spec, M)) == 10  # sink
