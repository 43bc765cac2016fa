// Names of the blocking-query indexes (docs/catalog.md, "Blocking-query
// indexes"). A read lists the ones its index comes from (Indexed.watch); apply
// lists the ones an entry moved; a blocking query waits only for its own, so a
// write elsewhere in the catalog costs it nothing.
export const watchKeys = {
  nodes: 'nodes',
  services: 'services',
  checks: 'checks',
  configs: 'configs',
  /** Every KV write; kvKey: one key's writes; kvDeletes: every KV deletion. */
  kv: 'kv',
  kvDeletes: 'kv-deletes',
  sessions: 'sessions',
  kvKey: (key: string) => `kv-key/${key}`,
  node: (name: string) => `node/${name}`,
  service: (name: string) => `service/${name}`,
  configKind: (kind: string) => `config-kind/${kind}`,
  configEntry: (kind: string, name: string) => `config-entry/${kind}/${name}`,
} as const;

/**
 * A read made of several reads: the largest index, watching what each part
 * watches (any part that watches everything makes the whole do so).
 */
export function joined<T>(
  value: T,
  parts: ReadonlyArray<{ index: number; watch?: readonly string[] }>,
): { index: number; value: T; watch?: readonly string[] } {
  let index = 1;
  const keys = new Set<string>();
  let everything = false;
  for (const p of parts) {
    index = Math.max(index, p.index);
    if (p.watch === undefined) everything = true;
    else for (const k of p.watch) keys.add(k);
  }
  return everything ? { index, value } : { index, value, watch: [...keys] };
}
