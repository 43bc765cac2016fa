// `xdshub analyze` (docs/analyze.md): checks a set of config entries and
// registrations — the live state, or files before they are written — for what
// would break clients or traffic, each finding with a stable code and a fix
// hint. Pure: the caller gathers the input (src/cli/analyze.ts).
import { isHubError } from '../../errors';
import { registerCommand } from '../../http/translate/catalog';
import { parseConfigEntry } from '../../http/translate/config-entries';
import { type Finding, finding } from './codes';
import { entryId, type Json } from './fields';
import { checkChainProtocol, checkIntentionNames, checkTargets, worldOf } from './references';
import { checkRegexes } from './regex';
import { checkShadowedRoutes } from './routes';
import { checkSplitWeights } from './splits';

export interface AnalyzeInput {
  /** Service names registered in the catalog (live), beside those the registrations below add. */
  services: readonly string[];
  /** Config entries (Consul's JSON: Kind, Name, …). */
  entries: readonly Json[];
  /** Catalog registrations as PUT /v1/catalog/register takes them (from files). */
  registrations?: readonly Json[];
  /** The datacenter registrations are checked against. */
  datacenter?: string;
}

export interface AnalyzeReport {
  findings: Finding[];
  errors: number;
  warnings: number;
}

/** The hub's own write validation (XA0008), for what a write would refuse outright. */
function validity(e: Json): Finding[] {
  try {
    parseConfigEntry(e);
    return [];
  } catch (err) {
    if (!isHubError(err, 'INVALID_ARGUMENT')) throw err;
    return [finding('XA0008', entryId(e), err.field, err.message)];
  }
}

function registrationsOf(input: AnalyzeInput): { names: string[]; findings: Finding[] } {
  const names: string[] = [];
  const findings: Finding[] = [];
  for (const r of input.registrations ?? []) {
    const service = (r['Service'] as Json | undefined)?.['Service'];
    const id = `registration/${String(r['Node'] ?? '?')}/${String(service ?? '-')}`;
    try {
      const command = registerCommand(r, { datacenter: input.datacenter ?? 'dc1' });
      if (command.type === 'register' && command.service) names.push(command.service.Service);
    } catch (err) {
      if (!isHubError(err, 'INVALID_ARGUMENT')) throw err;
      findings.push(finding('XA0008', id, err.field, err.message));
    }
  }
  return { names, findings };
}

const ORDER = { error: 0, warning: 1 } as const;

export function analyze(input: AnalyzeInput): AnalyzeReport {
  const registered = registrationsOf(input);
  const world = worldOf([...input.services, ...registered.names], input.entries);
  const findings = [...registered.findings];
  for (const e of input.entries) {
    const own = [...checkRegexes(e), ...checkSplitWeights(e)];
    // The validator would name the same regex or weight again: only what it adds.
    findings.push(...own, ...(own.some((f) => f.severity === 'error') ? [] : validity(e)));
    findings.push(...checkTargets(e, world), ...checkIntentionNames(e, world), ...checkChainProtocol(e, world));
    findings.push(...checkShadowedRoutes(e));
  }
  const byEntry = (a: Finding, b: Finding) => (a.entry < b.entry ? -1 : a.entry > b.entry ? 1 : 0);
  findings.sort((a, b) => ORDER[a.severity] - ORDER[b.severity] || byEntry(a, b));
  const errors = findings.filter((f) => f.severity === 'error').length;
  return { findings, errors, warnings: findings.length - errors };
}
