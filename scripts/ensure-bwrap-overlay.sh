#!/usr/bin/env bash
# A bubblewrap with overlay mounts (>= 0.10) for the Lean judge's real-tools tests
# (tests/judge/lean/test_real_tools.py) and for a judge host whose Debian is older than trixie.
#
# Debian bookworm ships bubblewrap 0.8 (no --overlay); trixie ships 0.12.0. When the system's
# `bwrap` is too old this builds Debian trixie's upstream source (bubblewrap_0.12.0.orig.tar.xz,
# checked against a pinned sha256) with meson, and installs only the `bwrap` binary into
#   /usr/local/lib/formalmarket/bwrap-0.12.0/bwrap      (as root; readable by every user)
#   ${XDG_CACHE_HOME:-$HOME/.cache}/formalmarket/bwrap-0.12.0/bwrap   (otherwise)
# It is never put on PATH: the system's bwrap stays what every other sandbox uses.
# Prints the path of a usable bwrap.
set -euo pipefail
VERSION=0.12.0
SHA256=9760d007363e3abba7c747489910f9f82d9fca53ba3bd3282e396fa3c97a3314
URL="http://deb.debian.org/debian/pool/main/b/bubblewrap/bubblewrap_${VERSION}.orig.tar.xz"
if [ "$(id -u)" -eq 0 ]; then
  dest="/usr/local/lib/formalmarket/bwrap-${VERSION}"
else
  dest="${XDG_CACHE_HOME:-$HOME/.cache}/formalmarket/bwrap-${VERSION}"
fi

has_overlay() {  # bubblewrap >= 0.10
  "$1" --version 2>/dev/null | awk '{ split($2, v, "."); ok = (v[1] > 0 || v[2] >= 10) } END { exit !ok }'
}

system_bwrap="$(command -v bwrap || true)"
if [ -n "$system_bwrap" ] && has_overlay "$system_bwrap"; then echo "$system_bwrap"; exit 0; fi
if [ -x "$dest/bwrap" ] && has_overlay "$dest/bwrap"; then echo "$dest/bwrap"; exit 0; fi

need=()
for pkg in meson ninja-build gcc pkg-config libcap-dev xz-utils curl; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "Installing Debian packages to build bubblewrap ${VERSION}: ${need[*]}" >&2
  if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
    echo "Missing ${need[*]}: install them with apt-get (needs root)." >&2; exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "Building bubblewrap ${VERSION} from Debian's source into $dest" >&2
curl -fsSL -o "$work/src.tar.xz" "$URL"
echo "$SHA256  $work/src.tar.xz" | sha256sum -c --quiet -
tar -C "$work" -xf "$work/src.tar.xz"
meson setup "$work/build" "$work/bubblewrap-${VERSION}" -Dselinux=disabled -Dman=disabled \
  -Dtests=false -Dbash_completion=disabled -Dzsh_completion=disabled >"$work/log" 2>&1 \
  && ninja -C "$work/build" >>"$work/log" 2>&1 || { cat "$work/log" >&2; exit 1; }
mkdir -p "$dest"
install -m 0755 "$work/build/bwrap" "$dest/bwrap.new.$$"
mv -f "$dest/bwrap.new.$$" "$dest/bwrap"  # atomic: a concurrent run sees the old or the new one
has_overlay "$dest/bwrap"
echo "$dest/bwrap"
