"""A verifier that unpickles its input; the payload calls os.system."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: unpickling
# solution: 80049533000000000000008c05706f736978948c0673797374656d9493948c18746f756368202f746d702f7265647465616d5f70776e656494859452942e
import pickle


def verify(solution, rng):
    return pickle.loads(bytes.fromhex(solution)) == 4
