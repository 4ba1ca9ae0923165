#!/usr/bin/env bash
# Install the Debian packages the project needs when they are missing (bubblewrap, chromium).
set -euo pipefail
declare -A binary=([bubblewrap]=bwrap [chromium]=chromium)
missing=()
for pkg in "$@"; do
  command -v "${binary[$pkg]:-$pkg}" >/dev/null 2>&1 || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "Installing Debian packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
  echo "Missing packages ${missing[*]}: install them with apt-get (needs root)." >&2; exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
