// Topics, subjects and the wildcard rules, as Consul's publisher has them:
// health topics are keyed by the lower-cased service name and refuse the
// wildcard; config-entry topics are keyed "<partition>/<namespace>/<name>" and
// accept it; ServiceList accepts only the wildcard.
import { configSubject } from '../catalog/events';
import { CONFIG_TOPIC_BY_KIND, type ConfigEntryKind, SUBJECT_WILDCARD, Topic } from '../catalog/types';
import { invalid } from '../errors';
import type { Subject } from './types';

export const TOPIC_NAMES: ReadonlyMap<Topic, string> = new Map(
  Object.entries(Topic)
    .filter(([, v]) => typeof v === 'number')
    .map(([k, v]) => [v as Topic, k]),
);

const KIND_BY_TOPIC = new Map<Topic, ConfigEntryKind>(
  (Object.entries(CONFIG_TOPIC_BY_KIND) as [ConfigEntryKind, Topic][]).map(([kind, topic]) => [topic, kind]),
);

export function isHealthTopic(topic: Topic): boolean {
  return topic === Topic.ServiceHealth || topic === Topic.ServiceHealthConnect;
}

export function configKindOf(topic: Topic): ConfigEntryKind | undefined {
  return KIND_BY_TOPIC.get(topic);
}

export function supportsWildcard(topic: Topic): boolean {
  return topic === Topic.ServiceList || KIND_BY_TOPIC.has(topic);
}

export function topicName(topic: Topic): string {
  return TOPIC_NAMES.get(topic) ?? String(topic);
}

/**
 * Checks a request's topic and subject and returns the subject string its
 * events are published under (SUBJECT_WILDCARD for a wildcard subscription).
 * Throws INVALID_ARGUMENT with Consul's wording otherwise.
 */
export function resolveSubject(topic: Topic, subject: Subject): string {
  if (!TOPIC_NAMES.has(topic) || topic === Topic.Unknown) {
    throw invalid('Topic', `unknown topic ${String(topic)}`);
  }
  const name = topicName(topic);
  if (subject.wildcard === true) {
    if (!supportsWildcard(topic))
      throw invalid('WildcardSubject', `topic ${name} does not support wildcard subscriptions`);
    return SUBJECT_WILDCARD;
  }
  if (topic === Topic.ServiceList) {
    throw invalid('NamedSubject', `topic ${name} can only be consumed using WildcardSubject`);
  }
  if (subject.key === '') throw invalid('NamedSubject.Key', 'either WildcardSubject or NamedSubject.Key is required');
  if (isHealthTopic(topic)) {
    // Consul CE keys health events by the lower-cased name, peer-prefixed when imported.
    const key = subject.key.toLowerCase();
    return subject.peerName ? `${subject.peerName}/${key}` : key;
  }
  return configSubject({ Name: subject.key, Namespace: subject.namespace, Partition: subject.partition });
}
