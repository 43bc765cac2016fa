// google.protobuf.Duration → Go's time.Duration.String() form ("10s", "1m30s",
// "1h0m0s", "500ms", "1.5s"), the form Consul's JSON API writes durations in.

const NS = { us: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

function trimFraction(value: number, digits: number): string {
  return value.toFixed(digits).replace(/\.?0+$/, '');
}

export function goDuration(seconds: number, nanos: number): string {
  let ns = seconds * 1e9 + nanos;
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  ns = Math.abs(ns);
  if (ns < NS.us) return `${sign}${ns}ns`;
  if (ns < NS.ms) return `${sign}${trimFraction(ns / NS.us, 3)}µs`;
  if (ns < NS.s) return `${sign}${trimFraction(ns / NS.ms, 6)}ms`;
  const h = Math.floor(ns / NS.h);
  const m = Math.floor((ns - h * NS.h) / NS.m);
  const s = trimFraction((ns - h * NS.h - m * NS.m) / NS.s, 9);
  if (h > 0) return `${sign}${h}h${m}m${s}s`;
  if (m > 0) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}
