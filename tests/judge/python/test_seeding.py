"""Every library RNG is reseeded from the verdict's seed, the same in any fresh zygote."""

from __future__ import annotations

import collections.abc

import pytest

from judge.python import PythonJob, PythonJudge

# The values leave the sandbox in the RUNTIME_ERROR detail (the author's view).
DRAW = """
import random
import numpy
import sympy
from sympy.core.random import rng, _assumptions_rng
from sympy.ntheory.generate import randprime

def verify(solution, rng_):
    values = (
        random.random(), float(numpy.random.random()), rng.random(), _assumptions_rng.random(),
        int(randprime(10**6, 10**7)), sympy.Dummy().dummy_index,
    )
    raise ValueError(repr(values))
"""


@pytest.fixture
def two_fresh_judges() -> collections.abc.Iterator[tuple[PythonJudge, PythonJudge]]:
    first, second = PythonJudge(size=1), PythonJudge(size=1)
    yield first, second
    first.close()
    second.close()


def _values(judge: PythonJudge, seed: int) -> str:
    verdict = judge.judge(PythonJob(DRAW, "", seed=seed, time_limit_s=10))
    assert verdict.detail.startswith("ValueError: ("), verdict.detail
    return verdict.detail


def test_the_same_seed_gives_the_same_values_in_two_fresh_zygotes(
    two_fresh_judges: tuple[PythonJudge, PythonJudge],
) -> None:
    first, second = two_fresh_judges

    assert _values(first, 7) == _values(second, 7)


def test_different_seeds_give_different_values_in_every_generator(
    two_fresh_judges: tuple[PythonJudge, PythonJudge],
) -> None:
    first, _ = two_fresh_judges

    one = _values(first, 1).removeprefix("ValueError: (").rstrip(")").split(", ")
    two = _values(first, 2).removeprefix("ValueError: (").rstrip(")").split(", ")

    assert len(one) == len(two) == 6
    assert all(a != b for a, b in zip(one, two, strict=True))


def test_numpy_legacy_stream_takes_the_full_seed(
    two_fresh_judges: tuple[PythonJudge, PythonJudge],
) -> None:
    first, _ = two_fresh_judges
    source = "import numpy\ndef verify(s, r):\n    raise ValueError(numpy.random.random())\n"

    low = first.judge(PythonJob(source, "", seed=5, time_limit_s=10)).detail
    high = first.judge(PythonJob(source, "", seed=5 + 2**32, time_limit_s=10)).detail

    assert low.startswith("ValueError: 0.") and high.startswith("ValueError: 0.")
    assert low != high


def test_a_solver_sees_the_exception_type_and_not_the_hidden_values(
    two_fresh_judges: tuple[PythonJudge, PythonJudge],
) -> None:
    first, _ = two_fresh_judges
    source = (
        "import sympy\nx = sympy.Symbol('x')\ndef verify(s, r):\n    return bool(x < 987654321)\n"
    )

    verdict = first.judge(PythonJob(source, "", seed=1, time_limit_s=10))

    assert verdict.reason is not None and verdict.reason.value == "RUNTIME_ERROR"
    assert "987654321" in verdict.detail
    assert verdict.solver_detail == (
        "the verifier raised TypeError (the message is shown to the verifier's author only)"
    )
    assert "987654321" not in verdict.detail_for_solver


# Issue 25 section 5: hash(), set order, free_symbols order, and every generator built without
# a seed come from the verdict's seed. The detail is a digest of all of them plus a few values.
UNSEEDED = """
import hashlib
import random
import numpy
import scipy.stats.qmc
import sympy

def verify(solution, rng_):
    a, b, c, d = sympy.symbols("alpha beta gamma delta")
    values = [
        hash("formalmarket"), list({"x", "y", "z", "w", "v"}),
        [str(s) for s in (a * b + c - d).free_symbols],
        random.Random().random(), random.SystemRandom is not None,
        int(numpy.random.default_rng().integers(0, 10**9)),
        int(numpy.random.RandomState().randint(0, 10**9)),
        float(numpy.random.random()),
        sympy.randMatrix(2, 2, 0, 99).tolist(),
        scipy.stats.qmc.Sobol(2).random(2).tolist(),
        scipy.stats.qmc.LatinHypercube(2).random(2).tolist(),
    ]
    digest = hashlib.sha256(repr(values).encode()).hexdigest()[:32]
    raise ValueError(f"{digest} {values[0]} {values[3]} {values[5]}")
"""


def _unseeded(judge: PythonJudge, seed: int) -> str:
    verdict = judge.judge(PythonJob(UNSEEDED, "", seed=seed, time_limit_s=30, memory_limit_mb=512))
    assert verdict.detail.startswith("ValueError: "), verdict.detail
    return verdict.detail


def test_unseeded_generators_hash_and_set_order_follow_the_seed_in_two_fresh_zygotes(
    two_fresh_judges: tuple[PythonJudge, PythonJudge],
) -> None:
    first, second = two_fresh_judges

    same = _unseeded(first, 11)
    assert same == _unseeded(second, 11)  # byte-identical, in another fresh zygote
    assert same == _unseeded(first, 11)  # and in the same zygote's next child
    other = _unseeded(first, 12)
    # Another seed: every seeded generator moves (hash() does not: PYTHONHASHSEED is fixed).
    assert other.split()[1:] != same.split()[1:]
    assert other.split()[3:] != same.split()[3:]


OS_ENTROPY = """
import os
import random
import secrets
import uuid

def verify(solution, rng_):
    values = (
        os.urandom(8).hex(), os.getrandom(8).hex(), random.SystemRandom().getrandbits(64),
        secrets.token_hex(8), str(uuid.uuid4()), os.urandom(0),
    )
    raise ValueError(repr(values))
"""


def _entropy(judge: PythonJudge, seed: int) -> list[str]:
    verdict = judge.judge(PythonJob(OS_ENTROPY, "", seed=seed, time_limit_s=10))
    assert verdict.detail.startswith("ValueError: ("), verdict.detail
    return verdict.detail.removeprefix("ValueError: (").rstrip(")").split(", ")


def test_os_entropy_and_what_draws_from_it_follow_the_seed_in_two_fresh_zygotes(
    two_fresh_judges: tuple[PythonJudge, PythonJudge],
) -> None:
    first, second = two_fresh_judges

    same = _entropy(first, 21)
    other = _entropy(first, 22)

    assert same == _entropy(second, 21)  # another fresh zygote, the same bytes
    assert len(same) == 6
    assert same[-1] == "b''"
    assert all(a != b for a, b in zip(same[:-1], other[:-1], strict=True))


# More constructors without a seed (checked on 2026-12-06): each reaches SeedSequence(),
# random.Random.seed(None) or os.urandom, which the verdict's seed stands in for.
MORE_UNSEEDED = """
import hashlib
import random
import mpmath
import numpy
import scipy.optimize
import scipy.stats
import scipy.stats.qmc
import sympy
from sympy.combinatorics import Permutation
from sympy.polys.specialpolys import random_poly

def verify(solution, rng_):
    random.seed()
    numpy.random.seed()
    values = [
        random.random(), int(numpy.random.randint(0, 10**9)),
        *[int(numpy.random.Generator(bits()).integers(0, 10**9)) for bits in (
            numpy.random.PCG64, numpy.random.MT19937, numpy.random.Philox,
            numpy.random.SFC64, numpy.random.PCG64DXSM,
        )],
        numpy.random.SeedSequence().entropy, scipy.stats.norm.rvs(size=2).tolist(),
        scipy.stats.qmc.Halton(2).random(1).tolist(),
        scipy.stats.qmc.PoissonDisk(2).random(1).tolist(),
        scipy.stats.qmc.MultivariateNormalQMC([0, 0]).random(1).tolist(),
        scipy.optimize.differential_evolution(
            lambda x: (x[0] - 1) ** 2, [(-3, 3)], maxiter=3, polish=False, tol=0
        ).x.tolist(),
        str(mpmath.rand()), Permutation.random(6).array_form,
        str(random_poly(sympy.Symbol("x"), 3, -9, 9)), random.SystemRandom().random(),
    ]
    raise ValueError(hashlib.sha256(repr(values).encode()).hexdigest()[:32])
"""


def test_more_unseeded_generators_follow_the_seed_in_two_fresh_zygotes(
    two_fresh_judges: tuple[PythonJudge, PythonJudge],
) -> None:
    first, second = two_fresh_judges

    def digest(judge: PythonJudge, seed: int) -> str:
        job = PythonJob(MORE_UNSEEDED, "", seed=seed, time_limit_s=30, memory_limit_mb=512)
        verdict = judge.judge(job)
        assert verdict.detail.startswith("ValueError: "), verdict.detail
        return verdict.detail

    same = digest(first, 31)

    assert same == digest(second, 31)
    assert same != digest(first, 32)


# Red team 3: /dev/urandom and /dev/random inside the sandbox were fresh random bytes per
# zygote, so a verifier that reads them (`open` is a builtin; it publishes) gave a different
# detail for the same seed in two fresh zygotes.
ENTROPY_FILES = """
def verify(solution, rng_):
    values = []
    for device in ("/dev/urandom", "/dev/random"):
        with open(device, "rb") as handle:
            handle.seek(int(solution))
            values.append(handle.read(8).hex())
    raise ValueError(repr(values))
"""


def test_reading_the_entropy_devices_is_reproducible_in_two_fresh_zygotes(
    two_fresh_judges: tuple[PythonJudge, PythonJudge],
) -> None:
    first, second = two_fresh_judges

    def read(judge: PythonJudge, offset: int) -> str:
        verdict = judge.judge(PythonJob(ENTROPY_FILES, str(offset), seed=5, time_limit_s=10))
        assert verdict.detail.startswith("ValueError: ["), verdict.detail
        return verdict.detail

    same = read(first, 0)

    assert same == read(second, 0)
    assert read(first, 4096) == read(second, 4096) != same
