#!/bin/sh
# Regenerates src/gen/ (TypeScript types for proto/) with the same options the
# runtime loader uses (src/subscribe/proto.ts LOADER_OPTIONS): keepCase, longs
# as String, enums as String, defaults, oneofs.
set -eu
cd "$(dirname "$0")/.."
rm -rf src/gen/subscribe
npx proto-loader-gen-types \
  --keepCase --longs=String --enums=String --defaults --oneofs \
  --grpcLib=@grpc/grpc-js \
  -I proto \
  -O src/gen/subscribe \
  pbsubscribe/subscribe.proto
