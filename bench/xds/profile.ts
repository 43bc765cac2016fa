// XDS_BENCH_PROFILE=<file.cpuprofile>: a bench server's CPU profile of the
// measured change rounds only, from their start (after the warm-up rounds) to
// the stats reading after them or its exit (XDS_BENCH_PROFILE_CONNECT=1: of connect + sync instead, from
// setup on). The hub and the bare server take the same, so their profiles
// compare; a `%s` in the file name becomes the server's kind (hub, bare).
// XDS_BENCH_HEAP_PROFILE=<file.heapprofile>: the same window as a sampling heap
// profile instead (every allocation, collected or not: what drives the GC);
// with XDS_BENCH_HEAP_PROFILE_OLD=1 only what lived long enough to reach the old
// generation (still live, or collected by a full GC): what drives the full GCs.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

export interface RoundProfile {
  /** After setup. */
  setupDone(): void;
  /** On every stats command, before the reading. */
  stats(): Promise<void>;
  /** The measured rounds begin (after the warm-up rounds). */
  roundsStart(): void;
  /** Before the process exits. */
  exit(): Promise<void>;
}

export function roundProfile(kind: string, env: NodeJS.ProcessEnv = process.env): RoundProfile {
  const heap = env['XDS_BENCH_HEAP_PROFILE'] !== undefined;
  const to = (env['XDS_BENCH_PROFILE'] ?? env['XDS_BENCH_HEAP_PROFILE'])?.replace('%s', kind);
  const connect = env['XDS_BENCH_PROFILE_CONNECT'] === '1';
  const oldOnly = env['XDS_BENCH_HEAP_PROFILE_OLD'] === '1';
  const session = new Session();
  let profiling = false;
  let statsCalls = 0;
  const start = () => {
    profiling = true;
    session.connect();
    if (heap)
      session.post('HeapProfiler.startSampling', {
        samplingInterval: 4096,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: !oldOnly,
      } as object);
    else session.post('Profiler.enable', () => session.post('Profiler.start'));
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      profiling = false;
      const done = (err: Error | null, result: { profile: object }) => {
        if (!err) writeFileSync(to!, JSON.stringify(result.profile));
        resolve();
      };
      if (heap) session.post('HeapProfiler.stopSampling', done as never);
      else session.post('Profiler.stop', done);
    });
  return {
    setupDone: () => {
      if (to && connect) start();
    },
    async stats() {
      // Connect + sync: until the "connected" reading (the second); the rounds: until the last.
      if (++statsCalls >= 2 && profiling && (connect || statsCalls >= 3)) await stop();
    },
    roundsStart() {
      if (to && !connect && !profiling) start();
    },
    async exit() {
      if (profiling) await stop();
    },
  };
}
