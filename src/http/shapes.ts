// Consul's response shapes that differ from the catalog's own types.
import type { NodeService } from '../catalog/types';
export { serviceNode } from '../catalog/service-node';
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
  if (v === '' || ['1', 't', 'true', 'T', 'TRUE', 'True'].includes(v)) return true;
  if (['0', 'f', 'false', 'F', 'FALSE', 'False'].includes(v)) return false;
  return invalidFlag(name, v);
}

function invalidFlag(name: string, v: string): never {
  throw invalid(name, `Invalid value for ?${name}: "${v}"`);
}
