// The services a terminating-gateway entry links (docs/gateways.md "Terminating
// gateways"), read one way for every module that follows them: the catalog's
// Connect copies, the CA's leaves, the HTTP gateway reads.
import type { ConfigEntry } from './types';

export interface TerminatingLinks {
  /** The services named on their own, as written, each once. */
  named: string[];
  /** The entry links `*`. */
  wildcard: boolean;
}

export function terminatingLinks(entry: ConfigEntry | undefined): TerminatingLinks {
  const services = entry?.['Services'];
  const names = (Array.isArray(services) ? services : [])
    .map((svc) => (svc as { Name?: unknown } | null)?.Name)
    .filter((n): n is string => typeof n === 'string' && n !== '');
  return { named: [...new Set(names.filter((n) => n !== '*'))], wildcard: names.includes('*') };
}
