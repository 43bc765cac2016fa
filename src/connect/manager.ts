// The built-in CA at run time (docs/mesh.md "The built-in CA"): it makes the
// first root on the hub's first start, keeps a fresh leaf for every service
// that has a sidecar (or is Connect-native, or whose leaf was asked for), and
// after a root rotation reissues every leaf under the new root. Certificates
// are made here, before append, and reach every hub through the log; apply only
// checks them (src/connect/state.ts), so several hubs racing to issue the same
// leaf end with one winner and the others' entries refused.
import { randomUUID } from 'node:crypto';
import type pino from 'pino';
import type { Catalog } from '../catalog/catalog';
import { Topic, type CheckServiceNode } from '../catalog/types';
import { parseDurationMs } from '../config';
import { HubError, isHubError } from '../errors';
import { activeRoot, prunable } from './state';
import type { CaConfigValues, ConnectState, IssuedLeaf, RootInput } from './types';
import { crossSign, issueLeaf, makeRoot, serviceSpiffeId } from './x509';

export interface ConnectCaOptions {
  catalog: Catalog;
  logger: pino.Logger;
  datacenter: string;
  /** LeafCertTTL the CA starts with (--ca-leaf-cert-ttl); later changes go through its configuration. */
  initialLeafTtlMs: number;
  /** Leaves made at once (each is a key generation and a signature). */
  concurrency?: number;
  now?: () => number;
}

export interface ConfigUpdate {
  config: CaConfigValues;
  forceWithoutCrossSigning: boolean;
  /** An operator's root key and certificate; a key that differs from the active root's rotates the root. */
  privateKey?: string;
  rootCert?: string;
}

export interface ConnectCa {
  /** Resolves once the CA has its first root (made by this hub or read from the log). */
  ready(): Promise<void>;
  /** The service's current leaf; one is issued first when it has none, or it is due for renewal or signed by a rotated-out root. */
  leaf(service: string): Promise<IssuedLeaf>;
  /** Applies a configuration; rotates the root when the key changes. Resolves with the entry's index. */
  configure(update: ConfigUpdate): Promise<bigint>;
  /** The services whose leaves are kept fresh, sorted. */
  wanted(): string[];
  /** Leaves this hub issued (for /metrics). */
  stats(): { issued: number };
  stop(): void;
}

const ROOT_TTL_MS = 10 * 365 * 24 * 3_600_000;
/** Consul renews a leaf somewhere between 60 % and 90 % of its lifetime; the spread keeps renewals of many leaves apart. */
const RENEW_FROM = 0.6;
const RENEW_SPREAD = 0.3;
const MAX_TIMER_MS = 2 ** 31 - 1;

/** When a leaf is renewed: a point in [60 %, 90 %] of its lifetime, the same on every hub (taken from its serial). */
export function renewAt(leaf: IssuedLeaf): number {
  const start = Date.parse(leaf.ValidAfter);
  const end = Date.parse(leaf.ValidBefore);
  const spread = parseInt(leaf.SerialNumber.replace(/:/g, '').slice(0, 8), 16) / 2 ** 32;
  return start + (end - start) * (RENEW_FROM + RENEW_SPREAD * (Number.isFinite(spread) ? spread : 0.5));
}

export function defaultCaConfig(leafTtlMs: number): CaConfigValues {
  return { LeafCertTTL: goDuration(leafTtlMs), RootCertTTL: '87600h0m0s', IntermediateCertTTL: '8760h0m0s', PrivateKeyType: 'ec', PrivateKeyBits: 256 };
}

/** Milliseconds as Go prints a time.Duration ("72h0m0s", "1m30s", "500ms"). */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`;
}

/** The services a proxy fronts or that are Connect-native: they need leaves. */
function needsLeaf(csn: CheckServiceNode): string | undefined {
  const s = csn.Service;
  if (s.Kind === 'connect-proxy') return s.Proxy?.DestinationServiceName || undefined;
  return s.Connect?.Native === true ? s.Service : undefined;
}

export function startConnectCa(options: ConnectCaOptions): ConnectCa {
  const { catalog, logger, datacenter } = options;
  const now = options.now ?? Date.now;
  const concurrency = options.concurrency ?? 4;
  /** `node\0serviceID` → the service that instance needs a leaf for. */
  const fronts = new Map<string, string>();
  /**
   * Services whose leaf was asked for over HTTP → when last asked. Kept fresh
   * while asked within one leaf lifetime, so whoever holds the last answer has
   * a valid leaf; a name asked once is not renewed for good.
   */
  const asked = new Map<string, number>();
  const inflight = new Map<string, Promise<IssuedLeaf>>();
  const queue: (() => void)[] = [];
  let running = 0;
  let stopped = false;
  let queued = false;
  let timer: NodeJS.Timeout | undefined;
  let issued = 0;
  const pruning = new Set<string>();

  const state = (): ConnectState => catalog.connectCa();

  function rebuild(): void {
    fronts.clear();
    for (const name of Object.keys(catalog.services().value)) {
      for (const csn of catalog.serviceInstances(name).value) {
        const need = needsLeaf(csn);
        if (need) fronts.set(`${csn.Node.Node}\0${csn.Service.ID}`, need);
      }
    }
  }

  function leafTtlMs(s: ConnectState): number {
    try {
      return s.config ? parseDurationMs(s.config.Config.LeafCertTTL, 'LeafCertTTL') : 0;
    } catch {
      return 0;
    }
  }

  function wanted(): Set<string> {
    const at = now();
    const ttl = leafTtlMs(state());
    for (const [service, last] of asked) if (at - last > ttl) asked.delete(service);
    return new Set([...fronts.values(), ...asked.keys()]);
  }

  function due(leaf: IssuedLeaf | undefined, s: ConnectState, at: number): boolean {
    return !leaf || leaf.RootID !== activeRoot(s)?.ID || at >= renewAt(leaf);
  }

  async function slot<T>(work: () => Promise<T>): Promise<T> {
    if (running >= concurrency) await new Promise<void>((resolve) => queue.push(resolve));
    running++;
    try {
      return await work();
    } finally {
      running--;
      queue.shift()?.();
    }
  }

  /** Issues a leaf for the service (one at a time per service); resolves with the leaf the log holds afterwards. */
  function issue(service: string): Promise<IssuedLeaf> {
    let p = inflight.get(service);
    if (p) return p;
    p = slot(async () => {
      for (let attempt = 0; attempt < 3; attempt++) {
        const s = state();
        const current = s.leaves.get(service);
        if (!due(current, s, now())) return current!;
        const root = activeRoot(s);
        if (!root || !s.config) throw new HubError('SHUTTING_DOWN', 'the CA has no active root yet');
        const leaf = await issueLeaf({
          root,
          service,
          spiffeId: serviceSpiffeId(s.trustDomain, datacenter, service),
          now: now(),
          ttlMs: parseDurationMs(s.config.Config.LeafCertTTL, 'LeafCertTTL'),
        });
        const result = await catalog.submit({ type: 'leaf-issue', leaf, ifSerial: current?.SerialNumber ?? '' });
        if (result.ok) issued++;
        // Refused: another hub issued one, or the root rotated meanwhile; look again.
      }
      const last = state().leaves.get(service);
      if (!last) throw new HubError('CONFLICT', `no leaf could be issued for "${service}"`);
      return last;
    }).finally(() => inflight.delete(service));
    inflight.set(service, p);
    return p;
  }

  async function prune(rootId: string): Promise<void> {
    if (pruning.has(rootId)) return;
    pruning.add(rootId);
    try {
      await catalog.submit({ type: 'ca-prune', rootId, at: new Date(now()).toISOString() });
    } finally {
      pruning.delete(rootId);
    }
  }

  /** Issues what is due, prunes what may go, and sets the timer for the next renewal. */
  function reconcile(): void {
    queued = false;
    if (stopped) return;
    const s = state();
    if (!s.config) return;
    const at = now();
    let next = Infinity;
    for (const service of wanted()) {
      const leaf = s.leaves.get(service);
      if (due(leaf, s, at)) {
        issue(service).catch((err: unknown) => {
          if (!isHubError(err, 'SHUTTING_DOWN')) logger.warn({ err, service }, 'issuing a leaf failed');
        });
      } else next = Math.min(next, renewAt(leaf!));
    }
    const ttl = leafTtlMs(s);
    for (const root of s.roots) {
      if (root.Active) continue;
      if (prunable(s, root, at)) {
        prune(root.ID).catch((err: unknown) => {
          if (!isHubError(err, 'SHUTTING_DOWN')) logger.warn({ err, root: root.ID }, 'pruning a root failed');
        });
      } else next = Math.min(next, Date.parse(root.RotatedOutAt) + ttl);
    }
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (Number.isFinite(next)) timer = setTimeout(schedule, Math.min(Math.max(next - now(), 0) + 5, MAX_TIMER_MS));
  }

  function schedule(): void {
    if (stopped || queued) return;
    queued = true;
    setImmediate(reconcile);
  }

  const offApplied = catalog.onApplied((_index, events, info) => {
    let changed = info.connect !== undefined;
    for (const e of events) {
      if (e.topic !== Topic.ServiceHealth || e.payload.type !== 'service-health') continue; // not its Connect copy
      const key = `${e.payload.csn.Node.Node}\0${e.payload.csn.Service.ID}`;
      const need = e.payload.op === 'register' ? needsLeaf(e.payload.csn) : undefined;
      if (need === fronts.get(key)) continue;
      if (need) fronts.set(key, need);
      else fronts.delete(key);
      changed = true;
    }
    if (changed) schedule();
  });
  const offReset = catalog.onReset(() => {
    rebuild();
    schedule();
  });

  async function init(): Promise<void> {
    if (state().config) return;
    const clusterId = randomUUID();
    const root = await makeRoot({ clusterId, trustDomain: `${clusterId}.consul`, serial: 1, now: now(), ttlMs: ROOT_TTL_MS });
    const config = { Provider: 'consul' as const, Config: defaultCaConfig(options.initialLeafTtlMs), ClusterID: clusterId, ForceWithoutCrossSigning: false };
    const result = await catalog.submit({ type: 'ca-init', config, root });
    // Refused: another hub sharing the log initialised it first; its root is the one.
    if (!result.ok && !state().config) throw new HubError('INTERNAL', `the CA could not be initialised: ${result.error?.message}`);
    if (result.ok) logger.info({ root: root.ID, trustDomain: `${clusterId}.consul` }, 'connect CA initialised');
  }

  rebuild();
  const started = init().then(schedule);
  started.catch((err: unknown) => logger.error({ err }, 'connect CA initialisation failed'));

  return {
    ready: () => started,
    async leaf(service) {
      await started;
      asked.set(service, now());
      const s = state();
      const current = s.leaves.get(service);
      if (!due(current, s, now())) return current!;
      return issue(service);
    },
    async configure(update) {
      await started;
      const s = state();
      const active = activeRoot(s)!;
      let root: RootInput | undefined;
      if (update.privateKey) {
        const candidate = await makeRoot({
          clusterId: s.config!.ClusterID,
          trustDomain: s.trustDomain,
          serial: Math.max(...s.roots.map((r) => r.SerialNumber)) + 1,
          now: now(),
          ttlMs: parseDurationMs(update.config.RootCertTTL, 'Config.RootCertTTL'),
          keyPem: update.privateKey,
          ...(update.rootCert ? { certPem: update.rootCert } : {}),
        });
        // The same key as the active root is no rotation (Consul compares the provider's key).
        if (candidate.SigningKeyID !== active.SigningKeyID && candidate.ID !== active.ID) {
          root = update.forceWithoutCrossSigning ? candidate : { ...candidate, IntermediateCerts: [await crossSign(candidate, active, now())] };
        }
      }
      const result = await catalog.submit({
        type: 'ca-config',
        config: update.config,
        forceWithoutCrossSigning: update.forceWithoutCrossSigning,
        ...(root ? { root } : {}),
        ifActiveRoot: active.ID,
        at: new Date(now()).toISOString(),
      });
      if (!result.ok) throw new HubError(result.error?.code ?? 'CONFLICT', result.error?.message ?? 'CA configuration refused');
      if (root) logger.info({ from: active.ID, to: root.ID }, 'connect CA root rotated; reissuing every leaf');
      return result.index;
    },
    wanted: () => [...wanted()].sort(),
    stats: () => ({ issued }),
    stop() {
      stopped = true;
      offApplied();
      offReset();
      if (timer) clearTimeout(timer);
      queue.splice(0).forEach((resume) => resume());
    },
  };
}
