// A shadow translation: the same catalog → Envoy translation the live xDS
// server uses (createCatalogXdsProvider plus the per-client config sources),
// fed from any CatalogReader instead of the live views — a state replayed from
// the log at index N, or a copy of the current state with a change applied
// (dry run), or the pinned state of a staged rollout. Nothing live is touched.
//
// The provider reads views; `staticViews` answers its view keys from the
// reader it was last synced to, and hands over a value only when its content
// changed, so the provider's own identity checks and encode cache keep a
// resync incremental: moving the shadow between two states costs the
// retranslation of what differs between them, not of the whole catalog.
import type { Logger } from 'pino';
import type { CatalogReader } from '../catalog/catalog';
import type { CatalogEvent } from '../catalog/types';
import type { ViewKey, ViewResult, ViewStore, ViewValue } from '../materializer/types';
import { createCatalogXdsProvider } from '../xds/translate/catalog-provider';
import { withClientConfigSources } from '../xds/translate/config-sources';
import type { ResourceProvider } from '../xds/transport/provider';

/** A view the shadow feeds: `list`, `health:<service>` or `config:<kind>`. */
export type ViewTag = string;

/** The views a batch of catalog events touched. */
export function viewTags(events: readonly CatalogEvent[]): Set<ViewTag> {
  const out = new Set<ViewTag>();
  for (const e of events) {
    const p = e.payload;
    if (p.type === 'service-health') out.add(`health:${p.csn.Service.Service}`);
    else if (p.type === 'service-list') out.add('list');
    else out.add(`config:${p.entry.Kind}`);
  }
  return out;
}

function tagOf(key: ViewKey): ViewTag {
  return key.kind === 'service-list'
    ? 'list'
    : key.kind === 'service-health'
      ? `health:${key.service}`
      : `config:${key.configKind}`;
}

export interface Shadow {
  /**
   * Moves the shadow to `reader`'s state; resolves once the provider has
   * translated it. With `only`, just those views are re-read: the caller knows
   * the others are the same as at the last sync. Departed services (docs/xds.md)
   * are forgotten unless `keepDeparted`: only a dry run's second step, the change
   * itself, keeps what it makes depart, as the live hub would.
   */
  sync(reader: CatalogReader, only?: ReadonlySet<ViewTag>, keepDeparted?: boolean): Promise<void>;
  /** What each node would get, exactly as the live server would build it. */
  readonly provider: ResourceProvider;
  close(): void;
}

interface Watch {
  key: ViewKey;
  onResult: (r: ViewResult<never>) => void;
  /** JSON of the value last handed over. */
  last: string | undefined;
}

function currentValue(reader: CatalogReader, key: ViewKey): unknown {
  switch (key.kind) {
    case 'service-list':
      return reader.serviceNames().value;
    case 'service-health':
      return reader.serviceInstances(key.service).value;
    case 'config-entries':
      return key.name === undefined
        ? reader.configEntries(key.configKind).value
        : [reader.configEntry(key.configKind, key.name).value].filter(Boolean);
  }
}

/** A ViewStore whose every view is read from the reader it was last synced to. Only `notify` is served. */
function staticViews(): ViewStore & { sync(reader: CatalogReader, only?: ReadonlySet<ViewTag>): void } {
  const watches = new Set<Watch>();
  let reader: CatalogReader | undefined;
  const deliver = (w: Watch) => {
    if (!reader) return;
    const value = currentValue(reader, w.key);
    const json = JSON.stringify(value);
    if (json === w.last) return;
    w.last = json;
    // The provider keeps what it is given; hand it a copy it can own.
    w.onResult({ index: reader.lastIndex(), value: JSON.parse(json) } as ViewResult<never>);
  };
  return {
    sync(next, only) {
      reader = next;
      // The service list first: it starts and stops the health watches.
      for (const w of [...watches].sort((a, b) =>
        a.key.kind === 'service-list' ? -1 : b.key.kind === 'service-list' ? 1 : 0,
      )) {
        if (watches.has(w) && (!only || only.has(tagOf(w.key)))) deliver(w);
      }
    },
    notify<K extends ViewKey>(key: K, _token: string, onResult: (r: ViewResult<ViewValue<K>>) => void) {
      const w: Watch = { key, onResult: onResult as Watch['onResult'], last: undefined };
      watches.add(w);
      deliver(w);
      return () => void watches.delete(w);
    },
    get() {
      return Promise.reject(new Error('static views serve notify only'));
    },
    close() {
      watches.clear();
    },
  };
}

export function createShadow(logger: Logger): Shadow {
  const views = staticViews();
  const catalogProvider = createCatalogXdsProvider({ views, logger });
  const provider = withClientConfigSources(catalogProvider);
  let queue: Promise<void> = Promise.resolve();
  return {
    provider,
    sync(reader, only, keepDeparted = false) {
      // One sync at a time: each waits for the translation of the one before.
      const run = queue.then(async () => {
        views.sync(reader, only);
        await catalogProvider.ready();
        // A service that left on the way to this state is no departed service of it (docs/operator-tools.md).
        if (!keepDeparted) {
          catalogProvider.forgetDeparted();
          await catalogProvider.ready();
        }
      });
      queue = run.catch(() => undefined);
      return run;
    },
    close() {
      catalogProvider.close();
      views.close();
    },
  };
}
