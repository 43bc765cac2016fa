// The built-in CA at run time (docs/mesh.md "The built-in CA"): it makes the
// first root on the hub's first start, keeps a fresh leaf for every service
// that has a sidecar (or is Connect-native, or is linked to a terminating
// gateway, or whose leaf was asked for), and
// after a root rotation reissues every leaf under the new root. Certificates
// are made here, before append, and reach every hub through the log; apply only
// checks them (src/connect/state.ts), so several hubs racing to issue the same
// leaf end with one winner and the others' entries refused.
import { randomUUID } from 'node:crypto';
import type pino from 'pino';
import type { Catalog } from '../catalog/catalog';
import { type TerminatingLinks, terminatingLinks } from '../catalog/terminating-links';
import { type CatalogEvent, type CheckServiceNode, Topic } from '../catalog/types';
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
  return {
    LeafCertTTL: goDuration(leafTtlMs),
    RootCertTTL: '87600h0m0s',
    IntermediateCertTTL: '8760h0m0s',
    PrivateKeyType: 'ec',
    PrivateKeyBits: 256,
  };
}

/** Milliseconds as Go prints a time.Duration ("72h0m0s", "1m30s", "500ms"). */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`;
}

/** The services a proxy fronts, gateways and Connect-native services: they need leaves. */
function needsLeaf(csn: CheckServiceNode): string | undefined {
  const s = csn.Service;
  if (s.Kind === 'connect-proxy') return s.Proxy?.DestinationServiceName || undefined;
  // A gateway dials (ingress) or answers (terminating) mesh traffic with its own service's leaf, as in Consul.
  if (s.Kind === 'ingress-gateway') return s.Service;
  return s.Connect?.Native === true ? s.Service : undefined;
}

interface CaState {
  catalog: Catalog;
  logger: pino.Logger;
  datacenter: string;
  initialLeafTtlMs: number;
  now: () => number;
  concurrency: number;
  /** `node\0serviceID` → the service that instance needs a leaf for. */
  fronts: Map<string, string>;
  /**
   * Services whose leaf was asked for over HTTP → when last asked. Kept fresh
   * while asked within one leaf lifetime, so whoever holds the last answer has
   * a valid leaf; a name asked once is not renewed for good.
   */
  asked: Map<string, number>;
  inflight: Map<string, Promise<IssuedLeaf>>;
  queue: (() => void)[];
  running: number;
  stopped: boolean;
  queued: boolean;
  timer: NodeJS.Timeout | undefined;
  issued: number;
  pruning: Set<string>;
}

export function startConnectCa(options: ConnectCaOptions): ConnectCa {
  const { catalog, logger } = options;
  const ca: CaState = {
    catalog,
    logger,
    datacenter: options.datacenter,
    initialLeafTtlMs: options.initialLeafTtlMs,
    now: options.now ?? Date.now,
    concurrency: options.concurrency ?? 4,
    fronts: new Map(),
    asked: new Map(),
    inflight: new Map(),
    queue: [],
    running: 0,
    stopped: false,
    queued: false,
    timer: undefined,
    issued: 0,
    pruning: new Set(),
  };
  const offApplied = catalog.onApplied((_index, events, info) => applied(ca, events, info.connect !== undefined));
  const offReset = catalog.onReset(() => {
    rebuild(ca);
    schedule(ca);
  });

  rebuild(ca);
  const started = init(ca).then(() => schedule(ca));
  started.catch((err: unknown) => logger.error({ err }, 'connect CA initialisation failed'));

  return {
    ready: () => started,
    async leaf(service) {
      await started;
      ca.asked.set(service, ca.now());
      const s = state(ca);
      const current = s.leaves.get(service);
      if (!due(current, s, ca.now())) return current!;
      return issue(ca, service);
    },
    async configure(update) {
      await started;
      return configure(ca, update);
    },
    wanted: () => [...wanted(ca)].sort(),
    stats: () => ({ issued: ca.issued }),
    stop() {
      ca.stopped = true;
      offApplied();
      offReset();
      if (ca.timer) clearTimeout(ca.timer);
      ca.queue.splice(0).forEach((resume) => resume());
    },
  };
}

const state = (ca: CaState): ConnectState => ca.catalog.connectCa();

function rebuild(ca: CaState): void {
  const { catalog, fronts } = ca;
  fronts.clear();
  for (const name of Object.keys(catalog.services().value)) {
    for (const csn of catalog.serviceInstances(name).value) {
      const need = needsLeaf(csn);
      if (need) fronts.set(`${csn.Node.Node}\0${csn.Service.ID}`, need);
    }
  }
}

/** The services terminating-gateway entries name, and whether one links `*`. */
function terminatingLinksOf(catalog: Catalog): TerminatingLinks {
  const links = catalog.configEntries('terminating-gateway').value.map(terminatingLinks);
  return { named: links.flatMap((l) => l.named), wildcard: links.some((l) => l.wildcard) };
}

/**
 * Services linked to a terminating gateway: the gateway answers for them with their leaves, as in
 * Consul. A `*` link covers every service with a plain instance (those in the mesh have leaves anyway).
 */
function linkedServices(catalog: Catalog): string[] {
  const { named, wildcard } = terminatingLinksOf(catalog);
  if (!wildcard) return named;
  const plain = Object.keys(catalog.services().value).filter((name) =>
    catalog.serviceInstances(name).value.some((c) => c.Service.Kind === ''),
  );
  return [...named, ...plain];
}

/** Follows the instances that need leaves; reconciles when they or the CA changed. */
function applied(ca: CaState, events: readonly CatalogEvent[], connectChanged: boolean): void {
  let changed = connectChanged;
  let wildcard: boolean | undefined;
  for (const e of events) {
    // A `*` link follows the service list.
    if (e.topic === Topic.ServiceList) wildcard ??= terminatingLinksOf(ca.catalog).wildcard;
    if (e.topic === Topic.TerminatingGateway || (e.topic === Topic.ServiceList && wildcard)) changed = true;
    if (e.topic !== Topic.ServiceHealth || e.payload.type !== 'service-health') continue; // not its Connect copy
    const key = `${e.payload.csn.Node.Node}\0${e.payload.csn.Service.ID}`;
    const need = e.payload.op === 'register' ? needsLeaf(e.payload.csn) : undefined;
    if (need === ca.fronts.get(key)) continue;
    if (need) ca.fronts.set(key, need);
    else ca.fronts.delete(key);
    changed = true;
  }
  if (changed) schedule(ca);
}

function leafTtlMs(s: ConnectState): number {
  try {
    return s.config ? parseDurationMs(s.config.Config.LeafCertTTL, 'LeafCertTTL') : 0;
  } catch {
    return 0;
  }
}

function wanted(ca: CaState): Set<string> {
  const at = ca.now();
  const ttl = leafTtlMs(state(ca));
  for (const [service, last] of ca.asked) if (at - last > ttl) ca.asked.delete(service);
  return new Set([...ca.fronts.values(), ...linkedServices(ca.catalog), ...ca.asked.keys()]);
}

function due(leaf: IssuedLeaf | undefined, s: ConnectState, at: number): boolean {
  return !leaf || leaf.RootID !== activeRoot(s)?.ID || at >= renewAt(leaf);
}

async function slot<T>(ca: CaState, work: () => Promise<T>): Promise<T> {
  if (ca.running >= ca.concurrency) await new Promise<void>((resolve) => ca.queue.push(resolve));
  ca.running++;
  try {
    return await work();
  } finally {
    ca.running--;
    ca.queue.shift()?.();
  }
}

/** Issues a leaf for the service (one at a time per service); resolves with the leaf the log holds afterwards. */
function issue(ca: CaState, service: string): Promise<IssuedLeaf> {
  let p = ca.inflight.get(service);
  if (p) return p;
  p = slot(ca, async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const s = state(ca);
      const current = s.leaves.get(service);
      if (!due(current, s, ca.now())) return current!;
      const root = activeRoot(s);
      if (!root || !s.config) throw new HubError('SHUTTING_DOWN', 'the CA has no active root yet');
      const leaf = await issueLeaf({
        root,
        service,
        spiffeId: serviceSpiffeId(s.trustDomain, ca.datacenter, service),
        now: ca.now(),
        ttlMs: parseDurationMs(s.config.Config.LeafCertTTL, 'LeafCertTTL'),
      });
      const result = await ca.catalog.submit({ type: 'leaf-issue', leaf, ifSerial: current?.SerialNumber ?? '' });
      if (result.ok) ca.issued++;
      // Refused: another hub issued one, or the root rotated meanwhile; look again.
    }
    const last = state(ca).leaves.get(service);
    if (!last) throw new HubError('CONFLICT', `no leaf could be issued for "${service}"`);
    return last;
  }).finally(() => ca.inflight.delete(service));
  ca.inflight.set(service, p);
  return p;
}

async function prune(ca: CaState, rootId: string): Promise<void> {
  if (ca.pruning.has(rootId)) return;
  ca.pruning.add(rootId);
  try {
    await ca.catalog.submit({ type: 'ca-prune', rootId, at: new Date(ca.now()).toISOString() });
  } finally {
    ca.pruning.delete(rootId);
  }
}

/** Issues what is due, prunes what may go, and sets the timer for the next renewal. */
function reconcile(ca: CaState): void {
  ca.queued = false;
  if (ca.stopped) return;
  const s = state(ca);
  if (!s.config) return;
  const at = ca.now();
  let next = Infinity;
  for (const service of wanted(ca)) {
    const leaf = s.leaves.get(service);
    if (due(leaf, s, at)) {
      issue(ca, service).catch((err: unknown) => {
        if (!isHubError(err, 'SHUTTING_DOWN')) ca.logger.warn({ err, service }, 'issuing a leaf failed');
      });
    } else next = Math.min(next, renewAt(leaf!));
  }
  const ttl = leafTtlMs(s);
  for (const root of s.roots) {
    if (root.Active) continue;
    if (prunable(s, root, at)) {
      prune(ca, root.ID).catch((err: unknown) => {
        if (!isHubError(err, 'SHUTTING_DOWN')) ca.logger.warn({ err, root: root.ID }, 'pruning a root failed');
      });
    } else next = Math.min(next, Date.parse(root.RotatedOutAt) + ttl);
  }
  if (ca.timer) clearTimeout(ca.timer);
  ca.timer = undefined;
  if (Number.isFinite(next))
    ca.timer = setTimeout(() => schedule(ca), Math.min(Math.max(next - ca.now(), 0) + 5, MAX_TIMER_MS));
}

function schedule(ca: CaState): void {
  if (ca.stopped || ca.queued) return;
  ca.queued = true;
  setImmediate(() => reconcile(ca));
}

async function init(ca: CaState): Promise<void> {
  if (state(ca).config) return;
  const clusterId = randomUUID();
  const root = await makeRoot({
    clusterId,
    trustDomain: `${clusterId}.consul`,
    serial: 1,
    now: ca.now(),
    ttlMs: ROOT_TTL_MS,
  });
  const config = {
    Provider: 'consul' as const,
    Config: defaultCaConfig(ca.initialLeafTtlMs),
    ClusterID: clusterId,
    ForceWithoutCrossSigning: false,
  };
  const result = await ca.catalog.submit({ type: 'ca-init', config, root });
  // Refused: another hub sharing the log initialised it first; its root is the one.
  if (!result.ok && !state(ca).config)
    throw new HubError('INTERNAL', `the CA could not be initialised: ${result.error?.message}`);
  if (result.ok) ca.logger.info({ root: root.ID, trustDomain: `${clusterId}.consul` }, 'connect CA initialised');
}

async function configure(ca: CaState, update: ConfigUpdate): Promise<bigint> {
  const s = state(ca);
  const active = activeRoot(s)!;
  const root = update.privateKey ? await rotatedRoot(ca, s, active, update, update.privateKey) : undefined;
  const result = await ca.catalog.submit({
    type: 'ca-config',
    config: update.config,
    forceWithoutCrossSigning: update.forceWithoutCrossSigning,
    ...(root ? { root } : {}),
    ifActiveRoot: active.ID,
    at: new Date(ca.now()).toISOString(),
  });
  if (!result.ok)
    throw new HubError(result.error?.code ?? 'CONFLICT', result.error?.message ?? 'CA configuration refused');
  if (root) ca.logger.info({ from: active.ID, to: root.ID }, 'connect CA root rotated; reissuing every leaf');
  return result.index;
}

/** The root an operator's key makes, cross-signed unless forced; undefined when it is the active root's key. */
async function rotatedRoot(
  ca: CaState,
  s: ConnectState,
  active: NonNullable<ReturnType<typeof activeRoot>>,
  update: ConfigUpdate,
  privateKey: string,
): Promise<RootInput | undefined> {
  const candidate = await makeRoot({
    clusterId: s.config!.ClusterID,
    trustDomain: s.trustDomain,
    serial: Math.max(...s.roots.map((r) => r.SerialNumber)) + 1,
    now: ca.now(),
    ttlMs: parseDurationMs(update.config.RootCertTTL, 'Config.RootCertTTL'),
    keyPem: privateKey,
    ...(update.rootCert ? { certPem: update.rootCert } : {}),
  });
  // The same key as the active root is no rotation (Consul compares the provider's key).
  if (candidate.SigningKeyID !== active.SigningKeyID && candidate.ID !== active.ID) {
    return update.forceWithoutCrossSigning
      ? candidate
      : { ...candidate, IntermediateCerts: [await crossSign(candidate, active, ca.now())] };
  }
  return undefined;
}
