// Alias checks (AliasService / AliasNode) of the hub's own node, as Consul's
// agent runs them: the check takes the health of what it aliases — the worst
// status of the aliased service's checks and its node's checks, or of the
// aliased node's checks; passing when there are none; critical when the
// aliased service is not registered. A sidecar's default checks include one
// (it mirrors its parent), so without this a sidecar registered with the
// shorthand would stay critical. Results are `check-update` commands, like the
// probes' (runner.ts), so every hub sharing the log agrees.
import type pino from 'pino';
import type { Catalog } from '../catalog/catalog';
import type { HealthCheck, HealthStatus } from '../catalog/types';
import { isHubError } from '../errors';

export interface AliasChecks {
  stop(): void;
}

const RANK: Record<HealthStatus, number> = { passing: 0, warning: 1, critical: 2, maintenance: 2 };

/** The status and output an alias check should have, given the catalog as it is. */
export function aliasResult(
  catalog: Pick<Catalog, 'node' | 'nodeChecks'>,
  check: HealthCheck,
  ownNode: string,
): { status: HealthStatus; output: string } {
  const def = check.Definition ?? {};
  const aliasService = typeof def['AliasService'] === 'string' ? (def['AliasService'] as string) : '';
  const aliasNode =
    typeof def['AliasNode'] === 'string' && def['AliasNode'] !== '' ? (def['AliasNode'] as string) : ownNode;
  const found = catalog.node(aliasNode).value;
  if (!found) return { status: 'critical', output: `Node "${aliasNode}" not found` };
  if (aliasService !== '' && !found.Services.some((s) => s.ID === aliasService)) {
    return { status: 'critical', output: `Service "${aliasService}" not found on node "${aliasNode}"` };
  }
  const relevant = catalog
    .nodeChecks(aliasNode)
    .value.filter(
      (c) =>
        !(c.Node === check.Node && c.CheckID === check.CheckID) &&
        (c.ServiceID === '' || (aliasService !== '' && c.ServiceID === aliasService)),
    );
  if (relevant.length === 0) return { status: 'passing', output: 'No checks found.' };
  let worst: HealthCheck = relevant[0]!;
  for (const c of relevant) if (RANK[c.Status] > RANK[worst.Status]) worst = c;
  if (RANK[worst.Status] === 0) return { status: 'passing', output: 'All checks passing.' };
  return {
    status: worst.Status === 'maintenance' ? 'critical' : worst.Status,
    output: `Aliased check "${worst.CheckID}" is ${worst.Status}`,
  };
}

const isAlias = (c: HealthCheck) => {
  const def = c.Definition ?? {};
  return (
    (typeof def['AliasService'] === 'string' && def['AliasService'] !== '') ||
    (typeof def['AliasNode'] === 'string' && def['AliasNode'] !== '')
  );
};

export function startAliasChecks(options: { catalog: Catalog; logger: pino.Logger; nodeName: string }): AliasChecks {
  const { catalog, nodeName: node, logger } = options;
  let stopped = false;
  let queued = false;
  /** checkId → the result being written, so one change is not written twice while its entry is in flight. */
  const writing = new Map<string, string>();

  function sync(): void {
    queued = false;
    if (stopped) return;
    for (const check of catalog.nodeChecks(node).value) {
      if (!isAlias(check)) continue;
      const want = aliasResult(catalog, check, node);
      if (want.status === check.Status && want.output === check.Output) continue;
      const key = `${want.status}\n${want.output}`;
      if (writing.get(check.CheckID) === key) continue;
      writing.set(check.CheckID, key);
      catalog
        .submit({ type: 'check-update', node, checkId: check.CheckID, status: want.status, output: want.output })
        .catch((err: unknown) => {
          if (!isHubError(err, 'SHUTTING_DOWN'))
            logger.warn({ err, checkId: check.CheckID }, 'alias check result not written');
        })
        .finally(() => {
          if (writing.get(check.CheckID) === key) writing.delete(check.CheckID);
          schedule();
        });
    }
  }

  function schedule(): void {
    if (stopped || queued) return;
    queued = true;
    setImmediate(sync);
  }

  const offApplied = catalog.onApplied(schedule);
  const offReset = catalog.onReset(schedule);
  schedule();
  return {
    stop() {
      stopped = true;
      offApplied();
      offReset();
    },
  };
}
