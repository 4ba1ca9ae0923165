"""A verifier compiles its own literal under dataclasses.py's file name, as `_create_fn`.

The guard recognised factories (and importlib's frames) by (co_filename, co_name), and compile()
lets its caller choose the file name: the verifier's own _create_fn exec'd the solution's text
as the factory's (outside red team, R6): ACCEPTED before the fix. Factories and the import
system's frames are now the code objects captured in the zygote, and library code is code
read from a library file, whatever a code object calls its file.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: InjectionBlocked
# solution: import sympy; answer = sympy.primefactors(391)[0]
import dataclasses

N = 391
FACTORY = (
    "def _create_fn(text):\n    scope = {}\n    exec(text, scope)\n    return scope['answer']\n"
)
SCOPE = {}
exec(compile(FACTORY, dataclasses.__file__, "exec"), SCOPE)  # at module level: before arming


def verify(solution, rng):
    candidate = SCOPE["_create_fn"](solution)
    return 1 < candidate < N and N % candidate == 0
