// Read-your-writes through a fan-out hub (docs/fanout.md). The upstream names,
// in the X-Xdshub-Changed header of each write's answer, the (topic, subject)
// pairs that write's log entry changed; the fan-out hub forwarding the write
// holds its answer until its relays for those pairs have reached the write's
// index. Keys are "topic|subject" (topic as its number), URI-encoded, comma-separated.
import type { Catalog } from '../catalog/catalog';
import type { CatalogEvent } from '../catalog/types';

export const CHANGED_HEADER = 'x-xdshub-changed';

/**
 * Remembers the events of the last `keep` applied entries that changed anything,
 * and spells an entry's keys only when its header is asked for: most entries
 * (other hubs' writes, writes not forwarded by a fan-out hub) are never asked about.
 */
export function trackChangedKeys(catalog: Pick<Catalog, 'onApplied'>, keep = 4096): { get(index: bigint): string | undefined; stop(): void } {
  const recent = new Map<bigint, readonly CatalogEvent[]>();
  const stop = catalog.onApplied((index, events) => {
    if (events.length === 0) return;
    recent.set(index, events);
    if (recent.size > keep) recent.delete(recent.keys().next().value as bigint);
  });
  function get(index: bigint): string | undefined {
    const events = recent.get(index);
    if (events === undefined) return undefined;
    const keys = new Set<string>();
    for (const e of events) keys.add(encodeURIComponent(`${e.topic}|${e.subject}`));
    return [...keys].join(',');
  }
  return { get, stop };
}

export function parseChangedKeys(header: string | string[] | undefined): string[] {
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!text) return [];
  return text.split(',').filter((k) => k !== '').map((k) => decodeURIComponent(k));
}
