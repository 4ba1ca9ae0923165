"""Bytes with a `# coding: utf-7` cookie: read as UTF-8 they hold no refused word, the compiler
reads `__import__('os')...`. The guard refuses bytes that declare any coding but UTF-8."""


# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: compile of source declaring coding
# solution: # coding: utf-7\n+AF8AXw-import+AF8AXw-('os').getpid()
def verify(solution, rng):
    exec(solution.encode())
    return True
