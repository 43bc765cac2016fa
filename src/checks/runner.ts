// The check runner: runs the HTTP, TCP and gRPC checks of this hub's own node
// (the agent's checks, as a Consul agent runs its own) and reaps services whose
// checks stay critical past DeregisterCriticalServiceAfter. Schedules come from
// the catalog, so they survive a restart; every result that changes a check is
// a `check-update` command in the log, so every hub sharing the log agrees.
//
// Like Consul's agent: a probe runs every Interval (first one at once), gives
// up after Timeout (default 10 s); SuccessBeforePassing / FailuresBeforeWarning
// / FailuresBeforeCritical consecutive results are needed before the status
// moves; a status change is written at once, an output-only change at most
// every `outputUpdateMs` (Consul's check_update_interval, 5 minutes).
import { setTimeout as sleep } from 'node:timers/promises';
import type pino from 'pino';
import type { Catalog } from '../catalog/catalog';
import type { HealthCheck } from '../catalog/types';
import { parseDurationMs } from '../config';
import { isHubError } from '../errors';
import { type ProbeResult, probeGrpc, probeHttp, probeTcp } from './probes';
import { type AddressPolicy, parseTarget, type Target } from './targets';

export interface CheckRunnerOptions {
  catalog: Catalog;
  logger: pino.Logger;
  /** The hub's node: only its checks are run. */
  nodeName: string;
  policy: AddressPolicy;
  outputUpdateMs?: number;
}

export interface CheckRunner {
  /** IDs of the checks being probed (for tests and debugging). */
  running(): string[];
  stop(): void;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const KINDS = ['http', 'tcp', 'grpc'] as const;

interface Spec {
  kind: (typeof KINDS)[number];
  text: string;
  target: Target;
  intervalMs: number;
  timeoutMs: number;
  successBeforePassing: number;
  failuresBeforeWarning: number;
  failuresBeforeCritical: number;
  http: {
    method: string;
    headers: Record<string, string[]>;
    body: string;
    tlsSkipVerify: boolean;
    tlsServerName: string;
  };
}

interface Probed {
  signature: string;
  controller: AbortController;
}

function count(v: unknown): number {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : 0;
}

/** The probe a check asks for, or undefined when the hub does not run it (TTL, alias, script, maintenance, …). */
export function specOf(check: HealthCheck): Spec | undefined {
  const def = check.Definition ?? {};
  const kind = KINDS.find((k) => typeof def[k.toUpperCase()] === 'string' && def[k.toUpperCase()] !== '');
  if (!kind) return undefined;
  const text = String(def[kind.toUpperCase()]);
  const interval = String(def.Interval || check.Interval || '');
  const timeout = String(def.Timeout || check.Timeout || '');
  const failuresBeforeCritical = count(def.FailuresBeforeCritical);
  const headers: Record<string, string[]> = {};
  for (const [k, v] of Object.entries((def.Header as Record<string, unknown> | undefined) ?? {})) {
    headers[k] = (Array.isArray(v) ? v : [v]).map(String);
  }
  return {
    kind,
    text,
    target: parseTarget(kind, text, `Definition.${kind.toUpperCase()}`),
    intervalMs: Math.max(parseDurationMs(interval, 'Interval'), 100),
    timeoutMs: timeout ? parseDurationMs(timeout, 'Timeout') : DEFAULT_TIMEOUT_MS,
    successBeforePassing: count(def.SuccessBeforePassing),
    failuresBeforeWarning:
      def.FailuresBeforeWarning === undefined ? failuresBeforeCritical : count(def.FailuresBeforeWarning),
    failuresBeforeCritical,
    http: {
      method: typeof def.Method === 'string' && def.Method !== '' ? def.Method : 'GET',
      headers,
      body: typeof def.Body === 'string' ? def.Body : '',
      tlsSkipVerify: def.TLSSkipVerify === true,
      tlsServerName: typeof def.TLSServerName === 'string' ? def.TLSServerName : '',
    },
  };
}

interface RunnerState {
  catalog: Catalog;
  node: string;
  policy: AddressPolicy;
  logger: pino.Logger;
  outputUpdateMs: number;
  probed: Map<string, Probed>;
  /** Checks counted critical, and the timer that reaps their service. */
  reapers: Map<string, NodeJS.Timeout>;
  stopped: boolean;
  syncQueued: boolean;
  lastNodeIndex: number;
}

export function startCheckRunner(options: CheckRunnerOptions): CheckRunner {
  const { catalog, nodeName: node } = options;
  const r: RunnerState = {
    catalog,
    node,
    policy: options.policy,
    logger: options.logger.child({ node }),
    outputUpdateMs: options.outputUpdateMs ?? 5 * 60_000,
    probed: new Map(),
    reapers: new Map(),
    stopped: false,
    syncQueued: false,
    lastNodeIndex: -1,
  };
  // A burst of entries costs one look at the node, after the burst.
  const offApplied = catalog.onApplied(() => {
    if (r.stopped || r.syncQueued) return;
    r.syncQueued = true;
    setImmediate(() => sync(r));
  });
  const offReset = catalog.onReset(() => sync(r, true));
  sync(r, true);

  return {
    running: () => [...r.probed.keys()].sort(),
    stop() {
      if (r.stopped) return;
      r.stopped = true;
      offApplied();
      offReset();
      for (const p of r.probed.values()) p.controller.abort();
      r.probed.clear();
      for (const t of r.reapers.values()) clearTimeout(t);
      r.reapers.clear();
    },
  };
}

async function probe(r: RunnerState, spec: Spec): Promise<ProbeResult> {
  let address: string;
  try {
    address = await r.policy.resolve(spec.target.host, spec.kind);
  } catch (err) {
    return { status: 'critical', output: (err as Error).message };
  }
  if (spec.kind === 'http') return probeHttp(spec.target, address, spec.timeoutMs, spec.http);
  if (spec.kind === 'tcp') return probeTcp(spec.target, address, spec.timeoutMs);
  return probeGrpc(spec.target, address, spec.timeoutMs, spec.text);
}

async function write(r: RunnerState, checkId: string, result: ProbeResult): Promise<void> {
  try {
    const res = await r.catalog.submit({
      type: 'check-update',
      node: r.node,
      checkId,
      status: result.status,
      output: result.output,
    });
    // NOT_FOUND: the check was removed while its probe ran.
    if (!res.ok && res.error?.code !== 'NOT_FOUND')
      r.logger.warn({ checkId, error: res.error }, 'check result refused');
  } catch (err) {
    if (!isHubError(err, 'SHUTTING_DOWN')) r.logger.warn({ err, checkId }, 'check result not written');
  }
}

async function run(r: RunnerState, checkId: string, spec: Spec, signal: AbortSignal): Promise<void> {
  let successes = 0;
  let failures = 0;
  let lastOutputWrite = 0;
  while (!signal.aborted) {
    const result = await probe(r, spec);
    if (signal.aborted) return;
    // Consecutive results needed before the status moves (Consul's StatusHandler).
    let status: ProbeResult['status'] | undefined;
    if (result.status === 'passing') {
      failures = 0;
      if (++successes >= spec.successBeforePassing) status = 'passing';
    } else {
      successes = 0;
      failures++;
      if (failures >= spec.failuresBeforeCritical) status = result.status;
      else if (failures >= spec.failuresBeforeWarning) status = 'warning';
    }
    const current = r.catalog.ttlCheck(r.node, checkId)?.check;
    if (!current) return;
    if (status !== undefined && status !== current.Status) {
      lastOutputWrite = Date.now();
      await write(r, checkId, { status, output: result.output });
    } else if (
      status !== undefined &&
      result.output !== current.Output &&
      Date.now() - lastOutputWrite >= r.outputUpdateMs
    ) {
      lastOutputWrite = Date.now();
      await write(r, checkId, { status, output: result.output });
    }
    await sleep(spec.intervalMs, undefined, { signal }).catch(() => undefined);
  }
}

function startProbe(r: RunnerState, check: HealthCheck): void {
  let spec: Spec | undefined;
  try {
    spec = specOf(check);
  } catch (err) {
    r.logger.warn({ err, checkId: check.CheckID }, 'check has an unusable definition; not run');
    spec = undefined;
  }
  const id = check.CheckID;
  const signature = spec ? JSON.stringify(spec) : '';
  const existing = r.probed.get(id);
  if (existing?.signature === signature) return;
  existing?.controller.abort();
  r.probed.delete(id);
  if (!spec) return;
  const controller = new AbortController();
  r.probed.set(id, { signature, controller });
  run(r, id, spec, controller.signal).catch((err: unknown) =>
    r.logger.error({ err, checkId: id }, 'check runner loop failed'),
  );
}

/** DeregisterCriticalServiceAfter: a timer from when the check was first seen critical. */
function reap(r: RunnerState, check: HealthCheck): void {
  const { catalog, node, logger, reapers } = r;
  const id = check.CheckID;
  const after = String(check.Definition?.DeregisterCriticalServiceAfter ?? '');
  const armed = reapers.get(id);
  if (check.Status !== 'critical' || after === '' || check.ServiceID === '') {
    if (armed) clearTimeout(armed);
    reapers.delete(id);
    return;
  }
  if (armed) return;
  let ms: number;
  try {
    ms = parseDurationMs(after, 'DeregisterCriticalServiceAfter');
  } catch {
    return;
  }
  const serviceId = check.ServiceID;
  reapers.set(
    id,
    setTimeout(() => {
      reapers.delete(id);
      if (catalog.ttlCheck(node, id)?.check.Status !== 'critical') return;
      logger.info(
        { checkId: id, serviceId },
        'check critical past DeregisterCriticalServiceAfter; deregistering its service',
      );
      catalog.submit({ type: 'deregister', node, serviceId }).catch((err: unknown) => {
        if (!isHubError(err, 'SHUTTING_DOWN')) logger.warn({ err, serviceId }, 'reaping the service failed');
      });
    }, ms),
  );
}

function sync(r: RunnerState, force = false): void {
  r.syncQueued = false;
  if (r.stopped) return;
  const checks = r.catalog.nodeChecks(r.node);
  if (!force && checks.index === r.lastNodeIndex) return;
  r.lastNodeIndex = checks.index;
  const present = new Set<string>();
  for (const check of checks.value) {
    present.add(check.CheckID);
    startProbe(r, check);
    reap(r, check);
  }
  for (const [id, p] of [...r.probed]) {
    if (present.has(id)) continue;
    p.controller.abort();
    r.probed.delete(id);
  }
  for (const [id, timer] of [...r.reapers]) {
    if (present.has(id)) continue;
    clearTimeout(timer);
    r.reapers.delete(id);
  }
}
