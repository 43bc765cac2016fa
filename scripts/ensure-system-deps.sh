#!/usr/bin/env bash
# Installs the system packages the test suite needs when they are missing:
# redis-server and redis-sentinel (the Redis log tests start real servers, and a
# Sentinel failover) and Debian's
# python3-grpcio (gRPC C-core as a real xDS client), chromium (the
# dashboard test drives Debian's headless Chromium) and openssl (the TLS
# tests make their certificates with it at test time). Never skips a test.
set -euo pipefail

need=()
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v redis-sentinel >/dev/null 2>&1 || need+=(redis-sentinel)
/usr/bin/python3 -c 'import grpc' >/dev/null 2>&1 || need+=(python3-grpcio)
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
[ ${#need[@]} -eq 0 ] && exit 0

echo "installing system packages for the tests: ${need[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
    echo "need root (or sudo) to apt-get install ${need[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
