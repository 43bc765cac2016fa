// What each ViewKey subscribes to and which View folds it, and the string the
// store shares materializers by: (topic, subject, token, filter).
import { CONFIG_TOPIC_BY_KIND, Topic } from '../catalog/types';
import { invalid } from '../errors';
import type { SubscribeRequest } from '../subscribe/types';
import type { ViewKey, ViewValue } from './types';
import type { View } from './view';
import { configEntriesView } from './views/config-entries';
import { healthView } from './views/health';
import { serviceListView } from './views/service-list';

/** The subscription a view of `key` needs, at index 0 (the materializer sets the index). */
export function requestForKey(key: ViewKey, token: string): SubscribeRequest {
  switch (key.kind) {
    case 'service-health':
      if (key.service === '') throw invalid('service', 'must not be empty');
      return {
        topic: key.connect ? Topic.ServiceHealthConnect : Topic.ServiceHealth,
        subject: { key: key.service },
        token,
        index: 0n,
      };
    case 'service-list':
      return { topic: Topic.ServiceList, subject: { wildcard: true }, token, index: 0n };
    case 'config-entries': {
      const topic = CONFIG_TOPIC_BY_KIND[key.configKind];
      if (topic === undefined) throw invalid('configKind', `unknown config entry kind "${key.configKind}"`);
      if (key.name === '') throw invalid('name', 'must not be empty (omit it for every entry of the kind)');
      return {
        topic,
        subject: key.name === undefined ? { wildcard: true } : { key: key.name },
        token,
        index: 0n,
      };
    }
  }
}

export function viewForKey<K extends ViewKey>(key: K): View<ViewValue<K>> {
  switch (key.kind) {
    case 'service-health':
      return healthView({
        service: key.service,
        connect: key.connect,
        tags: key.tags,
        passingOnly: key.passingOnly,
        nodeMeta: key.nodeMeta,
        filter: key.filter,
        filterOn: key.filterOn,
      }) as View<ViewValue<K>>;
    case 'service-list':
      return serviceListView() as View<ViewValue<K>>;
    case 'config-entries':
      return configEntriesView({ kind: key.configKind, name: key.name }) as View<ViewValue<K>>;
  }
  throw invalid('kind', `unknown view kind`);
}

/** Identity of a shared materializer: same key (tags order-insensitive) and same token. */
export function storeKey(key: ViewKey, token: string): string {
  switch (key.kind) {
    case 'service-health': {
      const tags = [...(key.tags ?? [])].map((t) => t.toLowerCase()).sort();
      const meta = Object.entries(key.nodeMeta ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const filter = key.filter ? [key.filterOn ?? 'check-service-node', key.filter] : null;
      return JSON.stringify(['health', key.service, !!key.connect, tags, !!key.passingOnly, meta, filter, token]);
    }
    case 'service-list':
      return JSON.stringify(['service-list', token]);
    case 'config-entries':
      return JSON.stringify(['config', key.configKind, key.name ?? null, token]);
  }
}
