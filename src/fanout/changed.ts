// Read-your-writes through a fan-out hub (docs/fanout.md). The upstream names,
// in the X-Xdshub-Changed header of each write's answer, the (topic, subject)
// pairs that write's log entry changed; the fan-out hub forwarding the write
// holds its answer until its relays for those pairs have reached the write's
// index. Keys are "topic|subject" (topic as its number), URI-encoded, comma-separated.
import type { Catalog } from '../catalog/catalog';
import type { CatalogEvent } from '../catalog/types';

export const CHANGED_HEADER = 'x-xdshub-changed';

/**
 * Remembers the events of the entries at the last `keep` indexes, and spells an
 * entry's keys only when its header is asked for: most entries (other hubs' writes,
 * writes not forwarded by a fan-out hub) are never asked about. A ring indexed by
 * the entry's index: a Map used as a queue (delete its oldest key per entry) costs a
 * walk over the holes the deletions leave at its front, ~1 % of a write's CPU.
 */
export function trackChangedKeys(
  catalog: Pick<Catalog, 'onApplied'>,
  keep = 4096,
): { get(index: bigint): string | undefined; stop(): void } {
  const indexes: (bigint | undefined)[] = new Array<bigint | undefined>(keep).fill(undefined);
  const eventsAt: (readonly CatalogEvent[] | undefined)[] = new Array<readonly CatalogEvent[] | undefined>(keep).fill(
    undefined,
  );
  const ringSize = BigInt(keep);
  const slot = (index: bigint) => Number(index % ringSize);
  const stop = catalog.onApplied((index, events) => {
    const at = slot(index);
    indexes[at] = index;
    eventsAt[at] = events.length > 0 ? events : undefined;
  });
  function get(index: bigint): string | undefined {
    const at = slot(index);
    const events = indexes[at] === index ? eventsAt[at] : undefined;
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
  return text
    .split(',')
    .filter((k) => k !== '')
    .map((k) => decodeURIComponent(k));
}
