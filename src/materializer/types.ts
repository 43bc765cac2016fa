// What readers (HTTP blocking queries, the xDS layer) see of materialized views.

import type { ServiceName } from '../catalog/catalog';
import type { CheckServiceNode, ConfigEntry, ConfigEntryKind } from '../catalog/types';

export type ViewKey =
  | {
      kind: 'service-health';
      service: string;
      /** ServiceHealthConnect instead of ServiceHealth. */
      connect?: boolean;
      /** All tags required, case-insensitive (Consul's ?tag=). */
      tags?: readonly string[];
      /** Only instances whose checks are all passing (Consul's ?passing). */
      passingOnly?: boolean;
      /** Only instances whose node has every key:value (Consul's ?node-meta). */
      nodeMeta?: Readonly<Record<string, string>>;
      /**
       * A ?filter expression (validated by the caller), run on each instance as
       * `filterOn`: the CheckServiceNode (/v1/health/service) or Consul's flattened
       * ServiceNode (/v1/catalog/service).
       */
      filter?: string;
      filterOn?: 'check-service-node' | 'service-node';
    }
  | { kind: 'service-list' }
  /** One config entry kind; `name` absent = every entry of the kind (wildcard). */
  | { kind: 'config-entries'; configKind: ConfigEntryKind; name?: string };

export type ViewValue<K extends ViewKey> = K extends { kind: 'service-health' }
  ? readonly CheckServiceNode[]
  : K extends { kind: 'service-list' }
    ? readonly ServiceName[]
    : readonly ConfigEntry[];

/** An immutable (deeply frozen) view result at an index. */
export interface ViewResult<T> {
  readonly index: bigint;
  readonly value: T;
}

export interface ViewStore {
  /**
   * Blocking-query read: resolves at once when the view's index is > minIndex
   * (and > 0), else when it moves past minIndex, or when `signal` aborts (then with
   * the current value). Rejects with the view's terminal error.
   * (Index 0 with a result only for a snapshot of an empty catalog: it answers
   * minIndex 0 at once, and minIndex 1 then waits for the first change.)
   */
  get<K extends ViewKey>(
    key: K,
    options: { token: string; minIndex: bigint; signal?: AbortSignal },
  ): Promise<ViewResult<ViewValue<K>>>;
  /** Calls onResult with the current result (first once there is one), then with the newest one after each change, at most once per event-loop turn. Returns stop(). */
  notify<K extends ViewKey>(
    key: K,
    token: string,
    onResult: (result: ViewResult<ViewValue<K>>) => void,
    onError?: (err: Error) => void,
  ): () => void;
  close(): void;
}
