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
  node -e '
    const fs = require("node:fs");
    const kinds = /cli\/main\.[jt]s serve|_bin\/envoy|redis-server|redis-sentinel|chrom/;
    for (const pid of fs.readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
      try {
        const env = fs.readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
        const stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1");
        if (!env.some((e) => e.startsWith("XDSHUB_TEST_RUN=")) || stat[stat.lastIndexOf(")") + 2] === "Z") continue;
        const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ");
        if (kinds.test(cmd)) console.log(`${pid} ${cmd.slice(0, 160)}`);
      } catch {}
    }'
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
