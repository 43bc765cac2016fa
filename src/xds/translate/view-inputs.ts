// Part of the catalog provider: tracking its inputs. Watches the service list,
// the health of every listed service (watches start and stop as services come
// and go) and the config-entry kinds the mapping reads, keeps what the views
// last delivered, and records which services a change touched — everything,
// for the service list and config entries; one service and the services that
// fail over to it, for health. `onChange` is called after every delivery; the
// provider folds them (catalog-provider.ts).
import type { Logger } from 'pino';
import type { ServiceName } from '../../catalog/catalog';
import { XDS_WATCHED_KINDS } from '../../catalog/config-kinds';
import type { ConfigEntry, ConfigEntryKind } from '../../catalog/types';
import type { ViewStore } from '../../materializer/types';
import { type Instances, NO_INSTANCES } from './instance-diff';

/** Which services need retranslation: all of them, or these names. */
export interface InputChanges {
  all: boolean;
  services: ReadonlySet<string>;
}

export interface CatalogInputs {
  serviceList(): readonly ServiceName[];
  /** A service's instances as its health view last delivered them (none before it did): the view's result, its array built when read. */
  instances(service: string): Instances;
  entries(kind: ConfigEntryKind): readonly ConfigEntry[];
  /** What changed since the last call, and forget it. */
  takeChanges(): InputChanges;
  /** service → services whose assignments fail over to it: a health change of the first retranslates them too. */
  setDependents(dependents: ReadonlyMap<string, ReadonlySet<string>>): void;
  /** The service list, every watched kind and every listed service's health have arrived. */
  ready(): boolean;
  close(): void;
}

interface HealthSlot {
  stop: () => void;
  instances?: Instances;
}

/** What the inputs keep: the views' last deliveries and what changed since the last takeChanges(). */
interface State {
  readonly views: ViewStore;
  readonly token: string;
  readonly logger: Logger;
  readonly onChange: () => void;
  serviceList: readonly ServiceName[] | undefined;
  readonly health: Map<string, HealthSlot>;
  readonly entries: Map<ConfigEntryKind, readonly ConfigEntry[]>;
  readonly stops: (() => void)[];
  readonly dirty: Set<string>;
  allDirty: boolean;
  dependents: ReadonlyMap<string, ReadonlySet<string>>;
  closed: boolean;
}

export function watchCatalogInputs(
  views: ViewStore,
  token: string,
  logger: Logger,
  onChange: () => void,
): CatalogInputs {
  const s: State = {
    views,
    token,
    logger,
    onChange,
    serviceList: undefined,
    health: new Map(),
    entries: new Map(),
    stops: [],
    dirty: new Set(),
    allDirty: true,
    dependents: new Map(),
    closed: false,
  };
  const listArrived = (result: { value: readonly ServiceName[] }) => serviceListArrived(s, result.value);
  s.stops.push(views.notify({ kind: 'service-list' }, token, listArrived, onError(s, 'service-list')));
  for (const kind of XDS_WATCHED_KINDS) s.stops.push(watchEntries(s, kind));

  return {
    serviceList: () => s.serviceList ?? [],
    instances: (service) => s.health.get(service)?.instances ?? NO_INSTANCES,
    entries: (kind) => s.entries.get(kind) ?? [],
    takeChanges() {
      const out: InputChanges = { all: s.allDirty, services: new Set(s.dirty) };
      s.dirty.clear();
      s.allDirty = false;
      return out;
    },
    setDependents(next) {
      s.dependents = next;
    },
    ready() {
      if (s.serviceList === undefined || XDS_WATCHED_KINDS.some((k) => !s.entries.has(k))) return false;
      for (const h of s.health.values()) if (h.instances === undefined) return false;
      return true;
    },
    close() {
      s.closed = true;
      s.stops.splice(0).forEach((stop) => stop());
      for (const slot of s.health.values()) slot.stop();
      s.health.clear();
    },
  };
}

const onError = (s: State, what: string) => (err: Error) =>
  s.logger.warn({ err, view: what }, 'view failed; keeping the last resources');

function touched(s: State, name: string): void {
  s.dirty.add(name);
  for (const d of s.dependents.get(name) ?? []) s.dirty.add(d);
}

function changed(s: State): void {
  if (!s.closed) s.onChange();
}

function serviceListArrived(s: State, list: readonly ServiceName[]): void {
  s.serviceList = list;
  const wanted = new Set(list.map((x) => x.Name));
  for (const name of wanted) if (!s.health.has(name)) watchHealth(s, name);
  for (const [name, slot] of s.health) {
    if (wanted.has(name)) continue;
    slot.stop();
    s.health.delete(name);
    touched(s, name);
  }
  // The universe of services changed: '*' ingress entries and references must be re-read.
  s.allDirty = true;
  changed(s);
}

function watchHealth(s: State, name: string): void {
  const slot: HealthSlot = { stop: () => {} };
  s.health.set(name, slot);
  slot.stop = s.views.notify(
    { kind: 'service-health', service: name },
    s.token,
    (result) => {
      if (s.health.get(name) !== slot) return;
      // The result, not its value: reading the value builds the sorted array, which
      // a change the provider can learn from the view (diffInstances) does not need.
      slot.instances = result;
      touched(s, name);
      changed(s);
    },
    onError(s, `service-health/${name}`),
  );
}

function watchEntries(s: State, kind: ConfigEntryKind): () => void {
  return s.views.notify(
    { kind: 'config-entries', configKind: kind },
    s.token,
    (result) => {
      s.entries.set(kind, result.value);
      // Config changes are rare and may touch any service; the per-service
      // input comparison and the encode cache keep the rework small.
      s.allDirty = true;
      changed(s);
    },
    onError(s, `config-entries/${kind}`),
  );
}
