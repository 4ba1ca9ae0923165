"""Code that has the token writes `A<token>` itself, then closes the result fd and returns False.

The harness's own frame (`R bool`) then fails to go out; it used to `os._exit(0)` anyway, so
the forged frame stood alone with exit status 0: ACCEPTED. Now a harness that cannot write its
frame exits with status 75. (The verifier's own code is trusted and could return True; this
stands for injected code that got hold of the token.)
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: exited with status 75
import os
import struct
import sys


def verify(solution, rng):
    frame = sys._getframe(1)
    while "token" not in frame.f_locals:
        frame = frame.f_back
    payload = b"A" + frame.f_locals["token"]
    os.write(1023, struct.pack(">I", len(payload)) + payload)
    os.close(1023)
    return False
