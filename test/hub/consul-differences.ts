// Every remaining difference between the hub and a real Consul that the
// differential test (consul-oracle.int.test.ts) finds, with its reason.
// docs/consul-differences.md has one row per entry (consul-differences.test.ts checks it).

export interface KnownDifference {
  /** The step's name: `METHOD path` or its label in consul-oracle-script.ts. */
  request: string;
  /** `status H vs C`, or a JSON path (`$`-rooted; `[id]` an array member by identity) with "(hub lacks)"/"(hub only)". */
  path: string;
  /** One line: why it differs. */
  reason: string;
  /** Whether a client reading the answer could notice. */
  noticeable: boolean;
}

export function diffKey(request: string, path: string): string {
  return `${request} :: ${path}`;
}

export const KNOWN_DIFFERENCES: KnownDifference[] = [
];
