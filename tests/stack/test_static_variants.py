"""collectstatic with DEBUG off writes the brotli and gzip variants docs/production.md promises
(WhiteNoise writes .br only when the `brotli` package is installed), and WhiteNoise serves
the .br file to a browser that accepts it.

The collectstatic is the suite's one (``collected_static``, tests/conftest.py), which the
production-shaped stack serves too."""

from __future__ import annotations

import gzip

import brotli


def test_collectstatic_writes_brotli_and_gzip_variants_that_decode_to_the_file(collected_static):
    static_root = collected_static.wait()
    hashed = [p for p in static_root.rglob("*.css") if p.stem.count(".") >= 1]
    assert hashed, "no hashed stylesheet was collected"
    for css in hashed:
        original = css.read_bytes()
        assert brotli.decompress(css.with_name(css.name + ".br").read_bytes()) == original
        assert gzip.decompress(css.with_name(css.name + ".gz").read_bytes()) == original
