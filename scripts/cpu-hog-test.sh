#!/usr/bin/env bash
# The suite on a loaded machine: `npm test`'s run with two busy loops beside it
# (run-tests.mjs --with-cpu-hog starts them at normal priority and kills them after),
# then a count, independent of run-tests' own sweep, of the processes a test run
# starts — hubs (cli/main serve), Envoys (_bin/envoy), redis-server, redis-sentinel,
# Chromium — that carry a test-run marker and did not exist before. Fails if the suite
# fails or anything is left. Arguments are passed to run-tests.mjs (filters).
set -uo pipefail
cd "$(dirname "$0")/.."

# Processes of any test run (XDSHUB_TEST_RUN in their environment) of those kinds, as "pid cmd".
marked() {
  for d in /proc/[0-9]*; do
    tr '\0' '\n' <"$d/environ" 2>/dev/null | grep -q '^XDSHUB_TEST_RUN=' || continue
    [ "$(cut -d' ' -f3 <"$d/stat" 2>/dev/null)" = Z ] && continue
    cmd=$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null)
    if printf '%s' "$cmd" | grep -Eq 'cli/main\.[jt]s serve|_bin/envoy|redis-server|redis-sentinel|chrom'; then
      echo "${d#/proc/} ${cmd:0:160}"
    fi
  done
}

before=$(marked | cut -d' ' -f1)
npm run build --silent || exit 1
started=$(date +%s)
node scripts/run-tests.mjs --with-cpu-hog "$@"
status=$?
elapsed=$(($(date +%s) - started))

left=$(marked | while read -r pid rest; do
  grep -qx "$pid" <<<"$before" || echo "$pid $rest"
done)
count=$(grep -c . <<<"$left")
echo "cpu-hog-test: suite exit $status in ${elapsed} s beside 2 busy loops; leftover processes: $count"
[ "$count" -gt 0 ] && echo "$left"
[ "$status" -eq 0 ] && [ "$count" -eq 0 ]
