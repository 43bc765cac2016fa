// Read-your-writes through a fan-out hub (docs/fanout.md). The upstream names,
// in the X-Xdshub-Changed header of each write's answer, the (topic, subject)
// pairs that write's log entry changed; the fan-out hub forwarding the write
// holds its answer until its relays for those pairs have reached the write's
// index. Keys are "topic|subject" (topic as its number), URI-encoded, comma-separated.
import type { Catalog } from '../catalog/catalog';

export const CHANGED_HEADER = 'x-xdshub-changed';

/** Remembers the keys of the last `keep` applied entries that changed anything. */
export function trackChangedKeys(catalog: Pick<Catalog, 'onApplied'>, keep = 4096): { get(index: bigint): string | undefined; stop(): void } {
  const recent = new Map<bigint, string>();
  const stop = catalog.onApplied((index, events) => {
    if (events.length === 0) return;
    const keys = new Set<string>();
    for (const e of events) keys.add(encodeURIComponent(`${e.topic}|${e.subject}`));
    recent.set(index, [...keys].join(','));
    if (recent.size > keep) recent.delete(recent.keys().next().value as bigint);
  });
  return { get: (index) => recent.get(index), stop };
}

export function parseChangedKeys(header: string | string[] | undefined): string[] {
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!text) return [];
  return text.split(',').filter((k) => k !== '').map((k) => decodeURIComponent(k));
}
