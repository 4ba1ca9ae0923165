"""Second layer of the injection guard: code compiled at run time may not reach frames.

Stands for a payload that got past the word check: a function compiled from text (file name
``<string>``, as sympify's eval gives it) walks from a generator's frame to the harness and
writes an acceptance frame with the verdict's token. The audit hook refuses ``gi_frame`` (and
``tb_frame``, ``f_code``, ``sys._getframe``) to run-time compiled code.
"""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: run-time compiled code may not read .gi_frame
SOURCE = """
def payload():
    box = []
    def walk():
        frame = box[0].gi_frame
        while frame is not None and "token" not in frame.f_locals:
            frame = frame.f_back
        harness = frame.f_globals
        harness["_write_frame"](b"A" + frame.f_locals["token"])
        harness["os"]._exit(0)
        yield
    box.append(walk())
    next(box[0])
"""
namespace = {}
exec(compile(SOURCE, "<string>", "exec"), namespace)


def verify(solution, rng):
    namespace["payload"]()
    return False
