// The ACL model, in Consul's shapes: tokens name policies, policies hold rules.
// What lives in the log is StoredToken / StoredPolicy: a token's secret is kept
// only as its SHA-256 hash, and a policy's rules are kept both as the text the
// operator wrote and as the parsed PolicyRules, so apply never parses.

/** A rule's access level; write implies read, deny beats everything. */
export type Access = 'read' | 'write' | 'deny';

/** Parsed rules of one policy (Consul's rule kinds; see docs/security.md for which govern what). */
export interface PolicyRules {
  acl?: Access;
  operator?: Access;
  mesh?: Access;
  peering?: Access;
  keyring?: Access;
  /** Per kind: exact name → rule, and prefix → rule. */
  service: NamedRules;
  service_prefix: NamedRules;
  /** Intentions on services (Consul's `intentions` inside a service rule); falls back to the service rule's policy. */
  intentions: NamedRules;
  intentions_prefix: NamedRules;
  node: NamedRules;
  node_prefix: NamedRules;
  agent: NamedRules;
  agent_prefix: NamedRules;
  /** Rule kinds the hub accepts so Consul policies load unchanged, though it has no such resources (KV, sessions, events, prepared queries). */
  other: Record<string, NamedRules>;
}

export type NamedRules = Record<string, Access | 'list'>;

export interface PolicyLink {
  ID: string;
  Name: string;
}

export interface StoredPolicy {
  ID: string;
  Name: string;
  Description: string;
  Rules: string;
  Datacenters: string[];
  Hash: string;
  parsed: PolicyRules;
  CreateIndex: number;
  ModifyIndex: number;
}

export interface StoredToken {
  AccessorID: string;
  /** SHA-256 (hex) of the SecretID; the secret itself is never stored. */
  SecretHash: string;
  Description: string;
  /** Linked policies by ID; names are looked up when the token is read. */
  PolicyIDs: string[];
  Local: boolean;
  CreateTime: string;
  ExpirationTime?: string;
  Hash: string;
  CreateIndex: number;
  ModifyIndex: number;
}

export type TokenInput = Omit<StoredToken, 'CreateIndex' | 'ModifyIndex'>;
export type PolicyInput = Omit<StoredPolicy, 'CreateIndex' | 'ModifyIndex'>;

/** Consul's fixed IDs. */
export const MANAGEMENT_POLICY_ID = '00000000-0000-0000-0000-000000000001';
export const MANAGEMENT_POLICY_NAME = 'global-management';
export const ANONYMOUS_ACCESSOR_ID = '00000000-0000-0000-0000-000000000002';
/** What a read shows in place of a secret it may not or cannot show (Consul's redaction text). */
export const REDACTED_SECRET = '<hidden>';
