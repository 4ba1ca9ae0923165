#!/bin/sh
# The image's own check: the toolchain report, then the real-toolchain conformance suite.
# Exits non-zero if the judge cannot run here or any case gets the wrong verdict.
set -eu
cd /opt/formalmarket/src
python3 -m judge lean --check-toolchain
# --noconftest and no Django plugin: the suite needs neither a database nor Django settings.
exec python3 -m pytest tests/lean_conformance -m lean_conformance -p no:django --noconftest \
    -p no:cacheprovider -q "$@"
