// The KV and session tables and their staged draft (the catalog's Draft holds
// one, tables.ts). Same rules as nodes and config entries: committed records are
// never mutated, a draft stages replacements, commit publishes them.
import type { KvEntry, SessionRow } from './kv-types';
import { byString } from './values';

export interface KvTables {
  kv: Map<string, KvEntry>;
  sessions: Map<string, SessionRow>;
  /** Key → wall-clock ms until which no session may acquire it (a lock delay after an invalidation). */
  lockDelays: Map<string, number>;
  /** The latest command time (`now`) applied: the time of entries that carry none. */
  clock: number;
}

export function emptyKvTables(): KvTables {
  return { kv: new Map(), sessions: new Map(), lockDelays: new Map(), clock: 0 };
}

export function forkKvTables(t: KvTables): KvTables {
  return { kv: new Map(t.kv), sessions: new Map(t.sessions), lockDelays: new Map(t.lockDelays), clock: t.clock };
}

export interface Change<V> {
  key: string;
  before: V | undefined;
  after: V | undefined;
}

function staged<V>(stage: Map<string, V | null>, base: ReadonlyMap<string, V>): Change<V>[] {
  const out: Change<V>[] = [];
  for (const key of [...stage.keys()].sort(byString)) {
    const after = stage.get(key) ?? undefined;
    const before = base.get(key);
    if (before !== after) out.push({ key, before, after });
  }
  return out;
}

export class KvDraft {
  private readonly kvStage = new Map<string, KvEntry | null>();
  private readonly sessionStage = new Map<string, SessionRow | null>();
  private readonly delayStage = new Map<string, number | null>();
  /** The entry's time: its command's `now`, else the tables' clock (set before the command runs). */
  now: number;

  constructor(private readonly base: KvTables) {
    this.now = base.clock;
  }

  get(key: string): KvEntry | undefined {
    const s = this.kvStage.get(key);
    return s !== undefined ? (s ?? undefined) : this.base.kv.get(key);
  }

  put(entry: KvEntry): void {
    this.kvStage.set(entry.Key, entry);
  }

  delete(key: string): void {
    if (this.get(key) !== undefined) this.kvStage.set(key, null);
  }

  /** Keys under `prefix` as staged, sorted. */
  keysUnder(prefix: string): string[] {
    const keys = new Set<string>();
    for (const k of this.base.kv.keys()) if (k.startsWith(prefix)) keys.add(k);
    for (const k of this.kvStage.keys()) if (k.startsWith(prefix)) keys.add(k);
    return [...keys].filter((k) => this.get(k) !== undefined).sort(byString);
  }

  /** Keys held by `sessionId`, sorted. */
  keysHeldBy(sessionId: string): string[] {
    return this.keysUnder('').filter((k) => this.get(k)!.Session === sessionId);
  }

  session(id: string): SessionRow | undefined {
    const s = this.sessionStage.get(id);
    return s !== undefined ? (s ?? undefined) : this.base.sessions.get(id);
  }

  putSession(row: SessionRow): void {
    this.sessionStage.set(row.session.ID, row);
  }

  deleteSession(id: string): void {
    if (this.session(id) !== undefined) this.sessionStage.set(id, null);
  }

  /** Every session as staged, by ID. */
  sessionIds(): string[] {
    const ids = new Set<string>([...this.base.sessions.keys(), ...this.sessionStage.keys()]);
    return [...ids].filter((id) => this.session(id) !== undefined).sort(byString);
  }

  hasSessions(): boolean {
    return this.base.sessions.size > 0 || this.sessionStage.size > 0;
  }

  lockDelay(key: string): number | undefined {
    const s = this.delayStage.get(key);
    return s !== undefined ? (s ?? undefined) : this.base.lockDelays.get(key);
  }

  setLockDelay(key: string, untilMs: number | undefined): void {
    if (this.lockDelay(key) !== untilMs) this.delayStage.set(key, untilMs ?? null);
  }

  kvChanges(): Change<KvEntry>[] {
    return staged(this.kvStage, this.base.kv);
  }

  sessionChanges(): Change<SessionRow>[] {
    return staged(this.sessionStage, this.base.sessions);
  }

  lockDelayChanges(): Change<number>[] {
    return staged(this.delayStage, this.base.lockDelays);
  }
}
