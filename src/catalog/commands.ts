// Log entries are commands. Everything apply needs travels inside the command
// (wall-clock time, generated IDs), so every replica folds the same log into the
// same state. The HTTP layer validates input and fills defaults before append;
// apply still checks what depends on state (unknown service, CAS mismatch).
import type { AclCommand } from '../acl/state';
import type { ConnectCommand } from '../connect/types';
import type { KvOp, SessionInput } from './kv-types';
import type { ConfigEntry, ConfigEntryKind, HealthCheck, HealthStatus, Node, NodeService } from './types';

type NoIndexes<T> = Omit<T, 'CreateIndex' | 'ModifyIndex'>;
export type NodeInput = NoIndexes<Node>;
export type ServiceInput = NoIndexes<NodeService>;
/** Node is filled in from the command; ServiceName/ServiceTags are filled in by apply from the service. */
export type CheckInput = Omit<NoIndexes<HealthCheck>, 'ServiceName' | 'ServiceTags'>;
export type ConfigEntryInput = NoIndexes<ConfigEntry>;

export interface SidecarInput {
  service: ServiceInput;
  checks: CheckInput[];
  portFree: boolean;
}

export type TxnOp =
  | { op: 'node-set'; node: NodeInput }
  | { op: 'node-cas'; node: NodeInput; index: number }
  | { op: 'node-delete'; node: string }
  | { op: 'node-delete-cas'; node: string; index: number }
  | { op: 'service-set'; node: string; service: ServiceInput }
  | { op: 'service-cas'; node: string; service: ServiceInput; index: number }
  | { op: 'service-delete'; node: string; serviceId: string }
  | { op: 'service-delete-cas'; node: string; serviceId: string; index: number }
  | { op: 'check-set'; check: CheckInput }
  | { op: 'check-cas'; check: CheckInput; index: number }
  | { op: 'check-delete'; node: string; checkId: string }
  | { op: 'check-delete-cas'; node: string; checkId: string; index: number }
  | { op: 'node-get'; node: string }
  | { op: 'service-get'; node: string; serviceId: string }
  | { op: 'check-get'; node: string; checkId: string };

/** A transaction op of `kv-txn`: the catalog's, or a KV operation. */
export type AnyTxnOp = TxnOp | { op: 'kv'; kv: KvOp };

export type Command =
  /**
   * Consul's catalog register: upsert the node (unless skipNodeUpdate), optionally a service, and checks.
   * `sidecar` (agent registrations with Connect.SidecarService) adds the service's sidecar proxy and its
   * checks in the same entry; with `portFree` its port came from the sidecar range and apply refuses
   * (CONFLICT) when another service of the node holds it by then.
   */
  | {
      type: 'register';
      node: NodeInput;
      service?: ServiceInput;
      checks: CheckInput[];
      skipNodeUpdate: boolean;
      sidecar?: SidecarInput;
    }
  /** Consul's catalog deregister: the whole node, one service (and its checks), or one check. */
  | { type: 'deregister'; node: string; serviceId?: string; checkId?: string }
  /**
   * TTL pass/warn/fail/update: sets status and output of an existing check and
   * records the refresh (the TTL clock restarts from this entry's index, not a time).
   */
  | { type: 'check-update'; node: string; checkId: string; status: HealthStatus; output: string }
  /**
   * A TTL check was not refreshed in time: sets it critical with `output`. Applies
   * only if the check's refresh index (TtlCheckState.refreshIndex: the index of its
   * last registration or TTL update, not its ModifyIndex) still equals
   * `ifModifyIndex`; after a refresh it is a no-op, and a duplicate expiry from
   * another hub finds the check already critical with that output and changes nothing.
   * Unknown check: a no-op success.
   */
  | { type: 'check-ttl-expire'; node: string; checkId: string; ifModifyIndex: number; output: string }
  /** Upsert a config entry; with `cas`, only if its ModifyIndex equals cas (0 = must not exist). */
  | { type: 'config-set'; entry: ConfigEntryInput; cas?: number }
  | { type: 'config-delete'; kind: ConfigEntryKind; name: string; cas?: number }
  /**
   * One KV operation (PUT/DELETE /v1/kv). A CAS, lock or unlock that does not hold
   * is refused with CONFLICT (Consul's `false`). `now` (wall-clock ms) decides lock delays.
   */
  | { type: 'kv'; op: KvOp; now: number }
  /** A new session; `agentNode`: its Node is the hub's own, which need not be registered. */
  | { type: 'session-create'; session: SessionInput; now: number; agentNode?: boolean }
  /** Ends a session (its locks released or its keys deleted, per Behavior); unknown ID: a no-op. */
  | { type: 'session-destroy'; id: string; now: number }
  /** Restarts a session's TTL from this entry (like a TTL check's refresh); unknown ID: NOT_FOUND. */
  | { type: 'session-renew'; id: string; now: number }
  /** The TTL ran out: ends the session if it was not renewed since `ifRenewIndex` (as check-ttl-expire). */
  | { type: 'session-expire'; id: string; ifRenewIndex: number; now: number }
  /** Applied atomically: all ops or none. */
  | { type: 'txn'; ops: TxnOp[] }
  /** A transaction with KV operations (and perhaps catalog ones), as `txn`; `now` decides lock delays. */
  | { type: 'kv-txn'; ops: AnyTxnOp[]; now: number }
  /**
   * Replace the whole state with a snapshot; every blocking index moves to this
   * entry and subscribers must reset. Produced by the catalog itself when it fell
   * behind a compacted log (another hub trimmed past it): it applies the log's
   * snapshot as this command at the snapshot's index. No API appends it.
   */
  | { type: 'restore'; state: string }
  /** Tokens and policies (src/acl/state.ts). */
  | AclCommand
  /** The built-in CA: roots, configuration, leaves (src/connect/types.ts). */
  | ConnectCommand;

export interface TxnError {
  OpIndex: number;
  What: string;
}

export interface ApplyResult {
  index: bigint;
  /** False when apply refused the command (CAS mismatch, unknown check, ...); state did not change. */
  ok: boolean;
  error?: { code: 'INVALID_ARGUMENT' | 'NOT_FOUND' | 'CONFLICT'; message: string; field?: string };
  /** For txn: one result per op that reads back an object (Consul's Results), when ok. */
  txnResults?: unknown[];
  /** For txn: why it rolled back (Consul's Errors), when !ok. */
  txnErrors?: TxnError[];
}
