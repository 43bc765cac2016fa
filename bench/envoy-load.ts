// bench/envoy-load: make-before-break under load, the long runs. An open-loop
// client sends --rate requests/s through a real Envoy (Delta ADS) while the
// hub moves traffic: a route moves A→B and back, a service leaves a route and
// is deleted, half the endpoints churn every 100 ms for --churn (10 s), a
// splitter ramps 0→100 in steps of 10. Prints the counts of 200s, 5xx and
// connection errors per scenario (the suite's short version asserts zero).
//
//   node --import tsx bench/envoy-load.ts [--rate 200] [--churn 10s] [--step 500ms]
//
// Run it with no other benchmark on the machine.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { parseDurationMs } from '../src/config';
import { mbbWorld, SCENARIOS } from '../test/envoy/mbb-scenarios';
import { clientFailures, envoyFailures, summary } from '../test/envoy/open-loop';
import { envoyVersion } from '../test/helpers/envoy';

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '200' },
    churn: { type: 'string', default: '10s' },
    step: { type: 'string', default: '500ms' },
  },
});
const options = {
  rate: Number(values.rate),
  churnMs: parseDurationMs(values.churn, 'churn'),
  stepMs: parseDurationMs(values.step, 'step'),
};

async function main(): Promise<void> {
  console.log(
    `bench/envoy-load: envoy ${envoyVersion()}, ${options.rate} req/s open loop, churn ${options.churnMs} ms, steps ${options.stepMs} ms`,
  );
  const world = await mbbWorld();
  let failed = 0;
  try {
    for (const [name, scenario] of Object.entries(SCENARIOS)) {
      const c = await scenario(world, options);
      failed += clientFailures(c) + envoyFailures(c.envoy);
      console.log(
        `${summary(name, c)}; load ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
      );
    }
    console.log(
      `Envoy rejected updates: ${(await world.envoy.rejectedUpdates()).total}; failed requests in all: ${failed}`,
    );
  } finally {
    await world.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
