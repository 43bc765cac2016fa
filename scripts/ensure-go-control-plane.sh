#!/usr/bin/env bash
# Builds bench/xds's go-control-plane peer (bench/xds/gcp: server.NewServer over
# LinearCaches, github.com/envoyproxy/go-control-plane v0.14.0, Apache-2.0)
# from the Go module proxy into .tmp/gcp/ (ignored); rebuilt only when its
# sources change. Only the benchmark uses it (bench/xds.ts --mode gcp).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
command -v go >/dev/null 2>&1 || { echo "ensure-go-control-plane: the Go toolchain is missing (go is not on PATH)" >&2; exit 1; }
export GOMODCACHE="$root/.tmp/go/mod" GOCACHE="$root/.tmp/go/cache" GOTOOLCHAIN=local GOFLAGS=-mod=readonly
out="$root/.tmp/gcp/xds-bench-gcp"
src=(bench/xds/gcp/go.mod bench/xds/gcp/go.sum bench/xds/gcp/main.go)
if [ -x "$out" ] && [ -z "$(find "${src[@]}" -newer "$out" 2>/dev/null)" ]; then exit 0; fi
mkdir -p "$root/.tmp/gcp"
cd bench/xds/gcp
go mod download
go build -o "$out.tmp" .
mv "$out.tmp" "$out"
