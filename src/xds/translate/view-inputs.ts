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

export function watchCatalogInputs(views: ViewStore, token: string, logger: Logger, onChange: () => void): CatalogInputs {
  let serviceList: readonly ServiceName[] | undefined;
  const health = new Map<string, HealthSlot>();
  const entries = new Map<ConfigEntryKind, readonly ConfigEntry[]>();
  const stops: (() => void)[] = [];
  const dirty = new Set<string>();
  let allDirty = true;
  let dependents: ReadonlyMap<string, ReadonlySet<string>> = new Map();
  let closed = false;

  const onError = (what: string) => (err: Error) => logger.warn({ err, view: what }, 'view failed; keeping the last resources');
  const touched = (name: string) => {
    dirty.add(name);
    for (const d of dependents.get(name) ?? []) dirty.add(d);
  };
  const changed = () => {
    if (!closed) onChange();
  };

  function watchHealth(name: string): void {
    const slot: HealthSlot = { stop: () => {} };
    health.set(name, slot);
    slot.stop = views.notify(
      { kind: 'service-health', service: name },
      token,
      (result) => {
        if (health.get(name) !== slot) return;
        // The result, not its value: reading the value builds the sorted array, which
        // a change the provider can learn from the view (diffInstances) does not need.
        slot.instances = result;
        touched(name);
        changed();
      },
      onError(`service-health/${name}`),
    );
  }

  stops.push(
    views.notify(
      { kind: 'service-list' },
      token,
      (result) => {
        serviceList = result.value;
        const wanted = new Set(result.value.map((s) => s.Name));
        for (const name of wanted) if (!health.has(name)) watchHealth(name);
        for (const [name, slot] of health) {
          if (wanted.has(name)) continue;
          slot.stop();
          health.delete(name);
          touched(name);
        }
        // The universe of services changed: '*' ingress entries and references must be re-read.
        allDirty = true;
        changed();
      },
      onError('service-list'),
    ),
  );
  for (const kind of XDS_WATCHED_KINDS) {
    stops.push(
      views.notify(
        { kind: 'config-entries', configKind: kind },
        token,
        (result) => {
          entries.set(kind, result.value);
          // Config changes are rare and may touch any service; the per-service
          // input comparison and the encode cache keep the rework small.
          allDirty = true;
          changed();
        },
        onError(`config-entries/${kind}`),
      ),
    );
  }

  return {
    serviceList: () => serviceList ?? [],
    instances: (service) => health.get(service)?.instances ?? NO_INSTANCES,
    entries: (kind) => entries.get(kind) ?? [],
    takeChanges() {
      const out: InputChanges = { all: allDirty, services: new Set(dirty) };
      dirty.clear();
      allDirty = false;
      return out;
    },
    setDependents(next) {
      dependents = next;
    },
    ready() {
      if (serviceList === undefined || XDS_WATCHED_KINDS.some((k) => !entries.has(k))) return false;
      for (const h of health.values()) if (h.instances === undefined) return false;
      return true;
    },
    close() {
      closed = true;
      stops.splice(0).forEach((stop) => stop());
      for (const slot of health.values()) slot.stop();
      health.clear();
    },
  };
}
