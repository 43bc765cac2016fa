// Consul's response shapes that differ from the catalog's own types.
import type { NodeService } from '../catalog/types';

export { serviceNode } from '../catalog/service-node';

import { parseGoBool } from '../config';
import { invalid } from '../errors';

/** /v1/agent/services — Consul's AgentService (no indexes, the datacenter added). */
export function agentService(s: NodeService, datacenter: string): Record<string, unknown> {
  const { CreateIndex: _c, ModifyIndex: _m, ...rest } = s;
  return { ...rest, Datacenter: datacenter };
}

/** Query values that may repeat (?tag=a&tag=b) as a list. */
export function many(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/**
 * Consul's boolean query flags: present with no value (?passing) means true;
 * otherwise the value must parse as a bool.
 */
export function flag(query: Record<string, unknown>, name: string): boolean {
  if (!(name in query)) return false;
  const v = many(query[name]).at(-1) ?? '';
  const b = v === '' ? true : parseGoBool(v);
  if (b === undefined) throw invalid(name, `Invalid value for ?${name}: "${v}"`);
  return b;
}
