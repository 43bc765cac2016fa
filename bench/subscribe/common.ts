// Shared by the subscribe bench's processes: the IPC messages and the marker
// each event carries (sequence number and source timestamp in fixed-width
// ASCII), so clients can time an event without decoding it.

/** `@@<seq:10>:<ts µs since epoch:16>@@` — fixed width, so a template can be patched in place. */
export const MARKER_LEN = 2 + 10 + 1 + 16 + 2;

export function nowUs(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}

export function marker(seq: number, tsUs: number = nowUs()): string {
  return `@@${String(seq).padStart(10, '0')}:${String(tsUs).padStart(16, '0')}@@`;
}

export function readMarker(buf: Buffer): { seq: number; tsUs: number } | undefined {
  const at = buf.indexOf('@@');
  if (at < 0 || at + MARKER_LEN > buf.length) return undefined;
  const text = buf.toString('latin1', at + 2, at + MARKER_LEN - 2);
  return { seq: Number(text.slice(0, 10)), tsUs: Number(text.slice(11)) };
}

/** An encoded Event{Index, EndOfSnapshot: true}: tag 0x08 varint, then 0x10 0x01. */
export function isEndOfSnapshot(buf: Buffer): boolean {
  return buf.length <= 13 && buf[0] === 0x08 && buf[buf.length - 2] === 0x10 && buf[buf.length - 1] === 0x01;
}

export type ServerToMain =
  | { type: 'ready'; port: number }
  | {
      type: 'stats';
      rssBytes: number;
      produced: number;
      cpuMs: number;
      cacheHits?: number;
      cacheMisses?: number;
      slowConsumers?: number;
      eventBytes: number;
    };

export type MainToServer = { type: 'start' } | { type: 'allow'; upTo: number } | { type: 'stop' };

export type ClientToMain =
  | { type: 'progress'; live: number; minSeq: number; received: number; snapshotEvents: number }
  | { type: 'final'; received: number; hist: number[]; ended: Record<string, number> };

export type MainToClient = { type: 'stop' };

/** Latency histogram: 1 ms buckets up to 10 s (last bucket = more). */
export const HIST_BUCKETS = 10_001;

export function percentile(hist: number[], p: number): number {
  const total = hist.reduce((a, b) => a + b, 0);
  if (total === 0) return NaN;
  let seen = 0;
  for (let i = 0; i < hist.length; i++) {
    seen += hist[i] as number;
    if (seen >= total * p) return i;
  }
  return hist.length - 1;
}

/** User + system CPU milliseconds used since `start`. */
export function cpuMsSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}
