"""Protocol 4 resolves dotted names: module `numpy`, name `core.multiarray.scalar` walks
attributes from numpy (a `numpy.*` prefix rule let such names reach sys._getframe and
os.write). Only exact (module, name) pairs are allowed."""

# ruff: noqa -- an example program, linted only for what it is meant to show
# expect: REJECTED RUNTIME_ERROR
# detail: unpickling numpy.core.multiarray.scalar is not allowed
# solution: 80049523000000000000008c056e756d7079948c16636f72652e6d756c746961727261792e7363616c617294932e
import pickle


def verify(solution, rng):
    return pickle.loads(bytes.fromhex(solution)) == 4
