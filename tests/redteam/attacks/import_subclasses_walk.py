"""Reach os.system through object.__subclasses__() without importing."""


# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: os.system
def verify(solution, rng):
    for klass in ().__class__.__base__.__subclasses__():
        if klass.__name__ == "_wrap_close":
            system = klass.__init__.__globals__["system"]
            return system("touch /tmp/redteam_pwned") == 0
    return False
