"""A verifier that evals its input; the solution reads the token through inspect, no refused word.

`sympy.core.function.inspect` is reachable from the verifier's globals; `inspect.stack()` and
`inspect.getargvalues(frame)[3]` read frames from a real file (inspect.py) on the payload's
behalf, `getmodule(frame)` is the harness, whose `_write_frame` writes `A<token>`, and
`socket.close(1023)` made the harness's own frame fail before `os._exit(0)`: ACCEPTED before
the fix. Frame access is now refused whenever run-time compiled code is on the stack, and a
harness whose frame cannot be written exits non-zero.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: is not a literal of the verifier's code
# solution: [m._write_frame(b'A' + inspect.getargvalues(f)[3]['token']) or m.socket.close(1023) for inspect in [sympy.core.function.inspect] for f in [inspect.stack()[3][0]] for m in [inspect.getmodule(f)]]
import sympy


def verify(solution, rng):
    return eval(solution) == 42
