// Publishes a draft's KV entries, sessions and lock delays into the tables and
// moves their blocking-query indexes (watch-keys.ts). A renewal changes only a
// session's hidden renew index: it moves no index, so it wakes no query.
import type { Draft, Tables } from './tables';
import { watchKeys } from './watch-keys';

export function hasKvChanges(draft: Draft): boolean {
  return (
    draft.kv.kvChanges().length > 0 || draft.kv.sessionChanges().length > 0 || draft.kv.lockDelayChanges().length > 0
  );
}

/** Publishes; pushes the indexes moved onto `moved`, returns the sessions whose row changed. */
export function commitKv(tables: Tables, draft: Draft, moved: string[]): string[] {
  const t = tables.kvs;
  const ix = tables.indexes;
  const i = draft.index;
  t.clock = Math.max(t.clock, draft.kv.now);
  for (const { key, after } of draft.kv.kvChanges()) {
    ix.kv = i;
    moved.push(watchKeys.kv, watchKeys.kvKey(key));
    if (after) t.kv.set(key, after);
    else {
      t.kv.delete(key);
      ix.kvDeletes = i;
      moved.push(watchKeys.kvDeletes);
    }
  }
  const touched: string[] = [];
  for (const { key, before, after } of draft.kv.sessionChanges()) {
    touched.push(key);
    if (after) t.sessions.set(key, after);
    else t.sessions.delete(key);
    if (before?.session !== after?.session) {
      ix.sessions = i;
      moved.push(watchKeys.sessions);
    }
  }
  for (const { key, after } of draft.kv.lockDelayChanges()) {
    if (after === undefined) t.lockDelays.delete(key);
    else t.lockDelays.set(key, after);
  }
  return touched;
}
