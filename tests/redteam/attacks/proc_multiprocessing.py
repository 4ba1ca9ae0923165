"""multiprocessing.Process."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
import multiprocessing


def work():
    pass


def verify(solution, rng):
    process = multiprocessing.get_context("fork").Process(target=work)
    process.start()
    process.join()
    return True
