#!/usr/bin/env bash
# Builds the real consul-template the tests drive (HashiCorp consul-template
# v0.33.0) from the Go module proxy into .tmp/consul-template/ (ignored),
# cached across runs.
#
# Licence: v0.33.0 is the last release whose LICENSE is MPL-2.0 (later ones are
# under the BUSL, and the module proxy here refuses v0.34.0); this script reads
# the LICENSE of the exact module it downloaded and stops unless it is MPL-2.0.
# The module's own replace directives point at other modules, not at local
# folders, so a plain `go build` of the downloaded tree works. Never skips.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
version=v0.33.0
out="$root/.tmp/consul-template/consul-template-$version"
# Read whole, then matched (no early-closed pipe under pipefail).
if [ -x "$out" ] && [[ "$("$out" -v 2>&1 || true)" == *"consul-template ${version}"* ]]; then exit 0; fi
command -v go >/dev/null 2>&1 || { echo "ensure-consul-template: the Go toolchain is missing (go is not on PATH)" >&2; exit 1; }
export GOMODCACHE="$root/.tmp/go/mod" GOCACHE="$root/.tmp/go/cache" GOTOOLCHAIN=local GONOSUMDB=github.com/hashicorp GOFLAGS=-mod=mod
echo "ensure-consul-template: building consul-template $version from the Go module proxy" >&2
dir=$(go mod download -json "github.com/hashicorp/consul-template@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
first=$(head -5 "$dir/LICENSE")
if [[ "$first" != *"Mozilla Public License, version 2.0"* ]]; then
  echo "ensure-consul-template: consul-template $version is not MPL-2.0 (its LICENSE says otherwise); refusing to build it" >&2
  exit 1
fi
src="$root/.tmp/consul-template/src-$version"
rm -rf "$src" && mkdir -p "$(dirname "$src")"
cp -r "$dir" "$src" && chmod -R u+w "$src"
cd "$src"
go build -trimpath -ldflags "-X github.com/hashicorp/consul-template/version.GitCommit=modproxy" -o "$out.tmp" .
mv "$out.tmp" "$out"
built=$("$out" -v 2>&1 || true)
echo "${built%%$'\n'*}" >&2
