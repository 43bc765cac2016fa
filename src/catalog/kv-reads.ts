// Reads of KV entries and sessions with their blocking-query indexes. One key:
// its ModifyIndex, or while absent the last KV deletion (so a deletion and a
// creation both move it). A prefix: the newest ModifyIndex under it, never
// below the last KV deletion (there are no per-key tombstones to grow with
// churn; a deletion elsewhere wakes prefix readers early, and they see equal data).
import type { Indexed } from './catalog';
import type { KvEntry, Session } from './kv-types';
import type { Tables } from './tables';
import { byString } from './values';
import { watchKeys } from './watch-keys';

export interface SessionState {
  session: Session;
  renewIndex: number;
}

export interface KvReader {
  kvGet(key: string): Indexed<KvEntry | undefined>;
  /** Entries whose key starts with `prefix`, sorted by key. */
  kvList(prefix: string): Indexed<KvEntry[]>;
  /** Keys under `prefix`; with a separator, a key is cut after the first separator past the prefix (deduplicated). */
  kvKeys(prefix: string, separator: string): Indexed<string[]>;
  session(id: string): Indexed<Session | undefined>;
  /** Every session, by ID. */
  sessions(): Indexed<Session[]>;
  nodeSessions(node: string): Indexed<Session[]>;
  /** Sessions with their renew index, for the TTL scheduler. */
  sessionStates(): SessionState[];
  sessionState(id: string): SessionState | undefined;
}

const KV = Object.freeze([watchKeys.kv]);
const SESSIONS = Object.freeze([watchKeys.sessions]);

export function createKvReader(tables: () => Tables): KvReader {
  function under(prefix: string): KvEntry[] {
    const kv = tables().kvs.kv;
    const keys: string[] = [];
    for (const k of kv.keys()) if (k.startsWith(prefix)) keys.push(k);
    return keys.sort(byString).map((k) => kv.get(k)!);
  }
  function prefixIndexed<T>(entries: readonly KvEntry[], value: T): Indexed<T> {
    let index = tables().indexes.kvDeletes;
    for (const e of entries) index = Math.max(index, e.ModifyIndex);
    return { index: Math.max(1, index), value, watch: KV };
  }
  function sessionsWhere(keep: (s: Session) => boolean): Indexed<Session[]> {
    const t = tables();
    const ids = [...t.kvs.sessions.keys()].sort(byString);
    const value = ids.map((id) => t.kvs.sessions.get(id)!.session).filter(keep);
    return { index: Math.max(1, t.indexes.sessions), value, watch: SESSIONS };
  }
  const stateOf = (row: SessionState): SessionState => ({ session: row.session, renewIndex: row.renewIndex });
  return {
    kvGet(key) {
      const t = tables();
      const entry = t.kvs.kv.get(key);
      if (entry) return { index: Math.max(1, entry.ModifyIndex), value: entry, watch: [watchKeys.kvKey(key)] };
      return {
        index: Math.max(1, t.indexes.kvDeletes),
        value: undefined,
        watch: [watchKeys.kvKey(key), watchKeys.kvDeletes],
      };
    },
    kvList(prefix) {
      const entries = under(prefix);
      return prefixIndexed(entries, entries);
    },
    kvKeys(prefix, separator) {
      const entries = under(prefix);
      const keys: string[] = [];
      for (const { Key } of entries) {
        const cut = separator === '' ? -1 : Key.indexOf(separator, prefix.length);
        const key = cut < 0 ? Key : Key.slice(0, cut + separator.length);
        if (keys.at(-1) !== key) keys.push(key);
      }
      return prefixIndexed(entries, keys);
    },
    session(id) {
      const t = tables();
      return { index: Math.max(1, t.indexes.sessions), value: t.kvs.sessions.get(id)?.session, watch: SESSIONS };
    },
    sessions: () => sessionsWhere(() => true),
    nodeSessions: (node) => sessionsWhere((s) => s.Node === node),
    sessionStates() {
      const t = tables();
      return [...t.kvs.sessions.keys()].sort(byString).map((id) => stateOf(t.kvs.sessions.get(id)!));
    },
    sessionState(id) {
      const row = tables().kvs.sessions.get(id);
      return row ? stateOf(row) : undefined;
    },
  };
}
