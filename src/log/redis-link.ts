// One Redis connection as the log uses it: it knows whether it is up, and no
// command sent through it can outlive the connection it went out on.
//
// Why not rely on ioredis's own queues: with `autoResendUnfulfilledCommands: false`
// (required, see below) ioredis drops the commands that were in flight when a
// connection closed without ever settling their promises once it reconnects, and
// with its offline queue on, commands issued during an outage wait for up to
// `maxRetriesPerRequest` reconnect attempts (tens of seconds) and then fail with an
// error that says nothing about whether they ran. So here: the offline queue is
// off (a command while down fails at once, unsent), every command races the
// connection's `close` event (in flight when it closes → LinkDown with sent=true),
// and callers decide what a lost command means (reads retry, appends resend
// idempotently or give up).
import Redis, { type RedisOptions } from 'ioredis';
import type { RedisConnection } from './redis-target';

/** The connection was not up (sent=false: the command never left) or closed with the command in flight (sent=true). */
export class LinkDown extends Error {
  constructor(
    readonly sent: boolean,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'LinkDown';
  }
}

/**
 * For a command that must be answered by `deadline` (ms since the epoch): `late`
 * rejects then with LinkDown(sent=true, "no answer within `timeoutMs` ms"), unless
 * `cancel` ran first. Race the command against it. Rejected from setImmediate,
 * after the poll phase: when the event loop was held up past the deadline, a reply
 * already waiting in the socket is read first.
 */
export function answerDeadline(deadline: number, timeoutMs: number): { late: Promise<never>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const late = new Promise<never>((_, reject) => {
    const expire = () =>
      (immediate = setImmediate(() => reject(new LinkDown(true, `no answer within ${timeoutMs} ms`))));
    timer = setTimeout(expire, deadline - Date.now());
  });
  return {
    late,
    cancel() {
      clearTimeout(timer);
      clearImmediate(immediate);
    },
  };
}

/**
 * `command` (sent on `link`) answered within `ms`, or LinkDown(sent=true): the link is
 * then dropped, since a connection that does not answer one command will not answer
 * the ones queued behind it, and its late replies would be matched to later commands.
 */
export async function answeredWithin<T>(link: RedisLink, what: string, command: Promise<T>, ms: number): Promise<T> {
  const { late, cancel } = answerDeadline(Date.now() + ms, ms);
  const silent = late.catch((err: LinkDown) => {
    if (link.state() === 'ready') link.drop(`${what}: ${err.reason}`);
    throw err;
  });
  try {
    return await Promise.race([command, silent]);
  } finally {
    cancel();
  }
}

export type LinkState = 'connecting' | 'ready' | 'down' | 'closed';

export interface RedisLink {
  readonly client: Redis;
  state(): LinkState;
  /** How many times the connection became ready: a change means a reconnect (maybe to another server). */
  generation(): number;
  /** The last connection error ioredis reported (for messages). */
  lastError(): Error | undefined;
  /** Sends one command; rejects with LinkDown when down or when the connection closes before the reply. */
  run<T>(send: (client: Redis) => Promise<T>): Promise<T>;
  /**
   * Resolves once the connection is ready. Resolves false (not ready) when `signal`
   * aborts, the link closes, or `until` (epoch ms) passes.
   */
  whenReady(signal?: AbortSignal, until?: number): Promise<boolean>;
  /** Called on every transition to ready (after the first connect and after each reconnect). */
  onReady(listener: () => void): void;
  /** When the connection stopped being ready (epoch ms); undefined while it is ready. */
  downSince(): number | undefined;
  /** Resolves once the connection is no longer ready (true), or false when `signal` aborts or the link closes. */
  whenDown(signal: AbortSignal): Promise<boolean>;
  /**
   * Drops a connection that stopped answering (open but silent) and connects again.
   * Every command in flight on it rejects at once with LinkDown(sent=true, `reason`):
   * their replies, should they still come, would be matched to later commands.
   */
  drop(reason: string): void;
  close(): void;
}

/** ioredis's refusals of a command it did not send (offline queue off, or the connection ended). */
const UNSENT = /Stream isn't writeable|Connection is closed|^READONLY/;

/** After ioredis gave up ('end'), how long before the link starts it again. */
const RESTART_MS = 200;

/**
 * How long a connected socket may take to become ready (ioredis's ready check, an INFO)
 * before it is dropped and opened again: a stalled server accepts connections but
 * answers nothing, and ioredis would wait for that INFO reply forever.
 */
export const READY_TIMEOUT_MS = 2_000;

/** Reconnect quickly: a refused connect costs nothing, and writes are refused until it succeeds. */
const retryStrategy = (attempt: number): number => Math.min(attempt * 50, 500);

/** Options every log connection needs, on top of what the user configured (host, TLS, password, Sentinel). */
export function linkOptions(base: RedisOptions): RedisOptions {
  return {
    ...base,
    // A server that turned replica under us (a failover) answers writes READONLY:
    // reconnect, which with Sentinel finds the new primary. The write that got the
    // error is not resent by the client; the log decides.
    reconnectOnError: (err: Error) => (/^READONLY/.test(err.message) ? 1 : false),
    // Resending an append after a reconnect is decided by the log (it is idempotent
    // per writer and sequence number), never by the client library.
    autoResendUnfulfilledCommands: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: null,
    retryStrategy,
    lazyConnect: false,
  };
}

interface LinkCore {
  client: Redis;
  readyTimeoutMs: number;
  state: LinkState;
  lastError: Error | undefined;
  // Settled by the next 'close': every command sent meanwhile races it.
  lost: Promise<never>;
  markLost: (err: LinkDown) => void;
  generation: number;
  readyWaiters: Set<() => void>;
  readyListeners: Array<() => void>;
  downWaiters: Set<() => void>;
  downAt: number | undefined;
  readyTimer: NodeJS.Timeout | undefined;
}

export function openLink(connection: RedisConnection, readyTimeoutMs = READY_TIMEOUT_MS): RedisLink {
  const options = linkOptions(connection.options);
  const client = connection.url === undefined ? new Redis(options) : new Redis(connection.url, options);
  const l: LinkCore = {
    client,
    readyTimeoutMs,
    state: 'connecting',
    lastError: undefined,
    lost: undefined as unknown as Promise<never>,
    markLost: () => undefined,
    generation: 0,
    readyWaiters: new Set(),
    readyListeners: [],
    downWaiters: new Set(),
    // Opened not ready: a log that never connected has been down since it opened.
    downAt: Date.now(),
    readyTimer: undefined,
  };
  arm(l);
  watchClient(l);
  return {
    client,
    state: () => l.state,
    generation: () => l.generation,
    lastError: () => l.lastError,
    run: (send) => run(l, send),
    whenReady: (signal, until) => whenReady(l, signal, until),
    onReady(listener) {
      l.readyListeners.push(listener);
    },
    downSince: () => l.downAt,
    whenDown: (signal) => whenDown(l, signal),
    drop: (reason) => drop(l, reason),
    close: () => close(l),
  };
}

function arm(l: LinkCore): void {
  l.lost = new Promise<never>((_, reject) => (l.markLost = reject));
  l.lost.catch(() => undefined); // observed by run(); a close with nothing in flight is not an error
}

function goDown(l: LinkCore): void {
  l.state = 'down';
  l.downAt ??= Date.now();
  for (const wake of [...l.downWaiters]) wake();
}

/** Ends the socket now (a FIN would wait for a silent peer); ioredis reconnects per retryStrategy. */
function destroySocket(l: LinkCore, why: string): void {
  l.lastError = new Error(why);
  (l.client as unknown as { stream?: { destroy(): void } }).stream?.destroy();
}

/** Follows ioredis's events into the link's state. */
function watchClient(l: LinkCore): void {
  const { client } = l;
  client.on('connect', () => {
    clearTimeout(l.readyTimer);
    // Checked from setImmediate, after the poll phase: when the event loop was held up
    // past the timeout, a ready-check reply already waiting in the socket is read first.
    l.readyTimer = setTimeout(() => {
      setImmediate(() => {
        if (l.state === 'closed' || client.status !== 'connect') return;
        destroySocket(l, `connected but not ready within ${l.readyTimeoutMs} ms`);
      });
    }, l.readyTimeoutMs);
    l.readyTimer.unref();
  });
  client.on('error', (err: Error) => (l.lastError = err));
  client.on('ready', () => {
    clearTimeout(l.readyTimer);
    if (l.state === 'closed') return;
    l.state = 'ready';
    l.downAt = undefined;
    l.generation++;
    for (const wake of [...l.readyWaiters]) wake();
    for (const listener of l.readyListeners) listener();
  });
  // ioredis can give up for good ('end') on its own: with Sentinel, when a failover
  // announcement arrives while it is still resolving the primary. The log never gives
  // up while it is open: start connecting again (errors arrive as 'error' events).
  client.on('end', () => {
    if (l.state === 'closed') return;
    const again = setTimeout(() => {
      if (l.state !== 'closed' && client.status === 'end') client.connect().catch(() => undefined);
    }, RESTART_MS);
    again.unref();
  });
  client.on('close', () => {
    if (l.state === 'ready') goDown(l);
    const reject = l.markLost;
    arm(l);
    reject(new LinkDown(true, `connection closed${l.lastError ? ` (${l.lastError.message})` : ''}`));
  });
}

function run<T>(l: LinkCore, send: (client: Redis) => Promise<T>): Promise<T> {
  if (l.state !== 'ready') {
    return Promise.reject(
      new LinkDown(
        false,
        l.state === 'closed' ? 'closed' : `not connected${l.lastError ? ` (${l.lastError.message})` : ''}`,
      ),
    );
  }
  // ioredis may notice a dead socket before it emits 'close': it then refuses the
  // command without sending it, which is the same as being down.
  const sent = send(l.client).catch((err: unknown) => {
    if (err instanceof Error && UNSENT.test(err.message)) {
      // Believe it: until ioredis says 'ready' again, this link is down.
      if (l.state === 'ready') goDown(l);
      throw new LinkDown(false, err.message);
    }
    throw err;
  });
  return Promise.race([sent, l.lost]);
}

function whenReady(l: LinkCore, signal?: AbortSignal, until?: number): Promise<boolean> {
  if (l.state === 'ready') return Promise.resolve(true);
  if (l.state === 'closed' || signal?.aborted || (until !== undefined && Date.now() >= until))
    return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const timer = until === undefined ? undefined : setTimeout(() => done(false), until - Date.now());
    const onAbort = () => done(false);
    const onReady = () => done(true);
    function done(ok: boolean) {
      if (timer) clearTimeout(timer);
      l.readyWaiters.delete(onReady);
      signal?.removeEventListener('abort', onAbort);
      resolve(ok && l.state === 'ready');
    }
    // close() wakes these too; they then see the state and resolve false.
    l.readyWaiters.add(onReady);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function whenDown(l: LinkCore, signal: AbortSignal): Promise<boolean> {
  if (l.state === 'closed' || signal.aborted) return Promise.resolve(false);
  if (l.state !== 'ready') return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const onAbort = () => done();
    function done() {
      l.downWaiters.delete(done);
      signal.removeEventListener('abort', onAbort);
      resolve(l.state !== 'ready' && l.state !== 'closed');
    }
    // close() wakes these too; they then see the state and resolve false.
    l.downWaiters.add(done);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function drop(l: LinkCore, reason: string): void {
  if (l.state !== 'ready') return;
  goDown(l);
  const reject = l.markLost;
  arm(l);
  reject(new LinkDown(true, reason));
  destroySocket(l, `dropped: ${reason}`);
}

function close(l: LinkCore): void {
  if (l.state === 'closed') return;
  l.state = 'closed';
  clearTimeout(l.readyTimer);
  l.client.disconnect();
  for (const wake of [...l.readyWaiters, ...l.downWaiters]) wake();
}
