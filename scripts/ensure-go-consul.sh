#!/usr/bin/env bash
# Builds the second Consul client the tests use: HashiCorp's Go API
# (github.com/hashicorp/consul/api, pinned in test/clients/go/go.mod) with the
# scenario in test/clients/go/main.go. Modules come from the Go module proxy
# into .tmp/go/ (ignored), so a fresh clone and CI get them; rebuilt only when
# the sources change. Needs the Go toolchain named in go.mod; never skips.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
command -v go >/dev/null 2>&1 || { echo "ensure-go-consul: the Go toolchain is missing (go is not on PATH)" >&2; exit 1; }
export GOMODCACHE="$root/.tmp/go/mod" GOCACHE="$root/.tmp/go/cache" GOTOOLCHAIN=local GOFLAGS=-mod=readonly
out="$root/.tmp/go/consulapi-check"
src=(test/clients/go/go.mod test/clients/go/go.sum test/clients/go/main.go)
if [ -x "$out" ] && [ -z "$(find "${src[@]}" -newer "$out" 2>/dev/null)" ]; then exit 0; fi
mkdir -p "$root/.tmp/go"
cd test/clients/go
go mod download
go build -o "$out" .
