// Bounds how many large responses (initial syncs: S clusters, S assignments)
// are being written at once, across all streams. Each such write is copied per
// stream (the nonce, then grpc-js's framing) and sits in HTTP/2 buffers until
// the socket takes it; 1,000 Envoys syncing at once leave that burst in the
// allocator as RSS it does not give back. A stream waits for a slot holding the
// computed response (a shared body, not a copy) and writes nothing else
// meanwhile; the slot is freed when grpc-js reports the write done, when the
// stream closes, or after `holdMs` (a client that stops reading cannot starve
// the others). Freeing at the write, not at the ACK, keeps slow-to-ACK clients
// from holding slots and means no stream ever waits on itself.

export interface SyncTicket {
  /** Give the slot back, or stop waiting for one. Idempotent. */
  release(): void;
}

export interface SyncGate {
  /** Responses at least this large wait for a slot. */
  readonly largeBytes: number;
  /** Calls `start` once a slot is this caller's (now, or when one frees). */
  enter(start: () => void): SyncTicket;
  stats(): { active: number; waiting: number; maxActive: number; granted: number };
}

export interface SyncGateOptions {
  /** Streams with a large response in flight at once (≥ 1). */
  limit: number;
  largeBytes: number;
  /** A slot is given back after this long even without an ACK (0: never). */
  holdMs: number;
}

export const SYNC_GATE_DEFAULTS: SyncGateOptions = { limit: 4, largeBytes: 16 * 1024, holdMs: 10_000 };

export function createSyncGate(options: Partial<SyncGateOptions> = {}): SyncGate {
  const { limit, largeBytes, holdMs } = { ...SYNC_GATE_DEFAULTS, ...options };
  if (!(limit >= 1)) throw new RangeError(`sync gate limit must be ≥ 1, got ${limit}`);
  const queue: Array<() => void> = []; // grants, FIFO
  let active = 0;
  let maxActive = 0;
  let granted = 0;

  function grant(start: () => void, ticket: { state: 'waiting' | 'held' | 'done'; timer?: NodeJS.Timeout }): void {
    ticket.state = 'held';
    active++;
    granted++;
    maxActive = Math.max(maxActive, active);
    if (holdMs > 0) {
      ticket.timer = setTimeout(() => free(ticket), holdMs);
      ticket.timer.unref();
    }
    start();
  }

  function free(ticket: { state: 'waiting' | 'held' | 'done'; timer?: NodeJS.Timeout }): void {
    if (ticket.state !== 'held') return;
    ticket.state = 'done';
    clearTimeout(ticket.timer);
    active--;
    while (active < limit && queue.length > 0) queue.shift()!();
  }

  return {
    largeBytes,
    enter(start) {
      const ticket: { state: 'waiting' | 'held' | 'done'; timer?: NodeJS.Timeout } = { state: 'waiting' };
      const go = () => {
        if (ticket.state === 'waiting') grant(start, ticket);
      };
      if (active < limit && queue.length === 0) go();
      else queue.push(go);
      return {
        release() {
          if (ticket.state === 'waiting') {
            ticket.state = 'done';
            const i = queue.indexOf(go);
            if (i >= 0) queue.splice(i, 1);
          } else free(ticket);
        },
      };
    },
    stats: () => ({ active, waiting: queue.length, maxActive, granted }),
  };
}
