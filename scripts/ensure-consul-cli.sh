#!/usr/bin/env bash
# Builds the real `consul` CLI the tests drive: HashiCorp Consul v1.16.1 from
# the Go module proxy, into .tmp/consul/ (ignored), cached across runs.
#
# Licence: v1.16.1 and the five submodule versions its go.mod requires are
# MPL-2.0 (this script checks the first lines of each LICENSE and stops if one
# says otherwise). Releases from v1.16.6 on are BUSL and must not be used.
#
# The module's go.mod replaces api, sdk, proto-public, envoyextensions and
# troubleshoot with local folders, which a module zip leaves out; they are
# downloaded at the versions v1.16.1 requires and copied into a writable copy
# of the source tree, where the replace targets expect them. The checksum
# database does not know every one of them, hence GONOSUMDB. The first build
# takes 4-6 minutes on 2 cores; later runs reuse the binary. Never skips.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
version=v1.16.1
out="$root/.tmp/consul/consul-$version"
# The version is read whole before it is matched: `grep -q` or `head` closing the
# pipe early would kill the CLI with SIGPIPE, and pipefail would call that a failure.
if [ -x "$out" ] && [[ "$("$out" version 2>/dev/null)" == "Consul ${version}"* ]]; then exit 0; fi
command -v go >/dev/null 2>&1 || { echo "ensure-consul-cli: the Go toolchain is missing (go is not on PATH)" >&2; exit 1; }
export GOMODCACHE="$root/.tmp/go/mod" GOCACHE="$root/.tmp/go/cache" GOTOOLCHAIN=local GONOSUMDB=github.com/hashicorp GOFLAGS=-mod=mod
declare -A subs=([api]=v1.24.0 [sdk]=v0.14.1 [proto-public]=v0.4.1 [envoyextensions]=v0.4.1 [troubleshoot]=v0.3.1)

dir_of() { go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'; }
check_mpl() {
  local first
  first=$(head -5 "$1/LICENSE")
  if [[ "$first" != *"Mozilla Public License, version 2.0"* ]]; then
    echo "ensure-consul-cli: $2 is not MPL-2.0 (its LICENSE says otherwise); refusing to build it" >&2
    exit 1
  fi
}

echo "ensure-consul-cli: building consul $version from the Go module proxy (first time: 4-6 min on 2 cores)" >&2
main_dir=$(dir_of "github.com/hashicorp/consul@$version")
check_mpl "$main_dir" "github.com/hashicorp/consul@$version"
src="$root/.tmp/consul/src-$version"
rm -rf "$src" && mkdir -p "$(dirname "$src")"
cp -r "$main_dir" "$src" && chmod -R u+w "$src"
for name in "${!subs[@]}"; do
  mod="github.com/hashicorp/consul/$name@${subs[$name]}"
  d=$(dir_of "$mod")
  check_mpl "$d" "$mod"
  rm -rf "${src:?}/$name" && cp -r "$d" "$src/$name" && chmod -R u+w "$src/$name"
done
cd "$src"
go build -trimpath -ldflags "-X github.com/hashicorp/consul/version.GitCommit=modproxy" -o "$out.tmp" .
mv "$out.tmp" "$out"
built=$("$out" version)
echo "${built%%$'\n'*}" >&2
