// ACL tables inside the catalog state machine: tokens and policies, replaced
// as a whole on each ACL write (they are small and rarely written), so a draft
// stages a new AclTables and a refusal simply drops it. Apply is deterministic:
// IDs, hashes, times and parsed rules arrive inside the command.
import { ApplyError } from '../catalog/catalog-ops';
import { byString, deepFreeze, normalise, sameContent } from '../catalog/values';
import { emptyRules } from './rules';
import { sha256Hex } from './secrets';
import {
  ANONYMOUS_ACCESSOR_ID,
  MANAGEMENT_POLICY_ID,
  MANAGEMENT_POLICY_NAME,
  type PolicyInput,
  type StoredPolicy,
  type StoredToken,
  type TokenInput,
} from './types';

export interface AclTables {
  readonly tokens: ReadonlyMap<string, StoredToken>;
  /** SecretHash → AccessorID. */
  readonly bySecret: ReadonlyMap<string, string>;
  readonly policies: ReadonlyMap<string, StoredPolicy>;
  /** Index of the bootstrap (or of the initial management token that took its place); 0 = not yet. */
  readonly bootstrapIndex: number;
  /** Index of the last ACL change (X-Consul-Index of ACL reads). */
  readonly index: number;
}

export type AclCommand =
  /** PUT /v1/acl/bootstrap, or the initial management token (`initial`: a no-op when that secret already exists). */
  | { type: 'acl-bootstrap'; token: TokenInput; initial?: boolean }
  | { type: 'acl-token-set'; token: TokenInput; create: boolean }
  | { type: 'acl-token-delete'; accessorId: string }
  | { type: 'acl-policy-set'; policy: PolicyInput; create: boolean }
  | { type: 'acl-policy-delete'; id: string };

/** Consul's rules of the built-in global-management policy (for display: the policy itself grants everything). */
export const MANAGEMENT_RULES = `acl = "write"
agent_prefix "" {
  policy = "write"
}
event_prefix "" {
  policy = "write"
}
key_prefix "" {
  policy = "write"
}
keyring = "write"
node_prefix "" {
  policy = "write"
}
operator = "write"
mesh = "write"
peering = "write"
query_prefix "" {
  policy = "write"
}
service_prefix "" {
  policy = "write"
  intentions = "write"
}
session_prefix "" {
  policy = "write"
}`;

const MANAGEMENT_POLICY: StoredPolicy = deepFreeze({
  ID: MANAGEMENT_POLICY_ID,
  Name: MANAGEMENT_POLICY_NAME,
  Description: 'Builtin Policy that grants unlimited access',
  Rules: MANAGEMENT_RULES,
  Datacenters: [],
  Hash: sha256Hex(MANAGEMENT_RULES),
  parsed: emptyRules(),
  CreateIndex: 0,
  ModifyIndex: 0,
});

/** Consul's anonymous token: used when a request carries no token; its secret is the word "anonymous". */
const ANONYMOUS_TOKEN: StoredToken = deepFreeze({
  AccessorID: ANONYMOUS_ACCESSOR_ID,
  SecretHash: sha256Hex('anonymous'),
  Description: 'Anonymous Token',
  PolicyIDs: [],
  Local: false,
  CreateTime: '1970-01-01T00:00:00Z',
  Hash: '',
  CreateIndex: 0,
  ModifyIndex: 0,
});

export function emptyAclTables(): AclTables {
  return {
    tokens: new Map([[ANONYMOUS_TOKEN.AccessorID, ANONYMOUS_TOKEN]]),
    bySecret: new Map([[ANONYMOUS_TOKEN.SecretHash, ANONYMOUS_TOKEN.AccessorID]]),
    policies: new Map([[MANAGEMENT_POLICY_ID, MANAGEMENT_POLICY]]),
    bootstrapIndex: 0,
    index: 0,
  };
}

/** What one ACL write changed: tokens whose rights may differ now (their streams must end). */
export interface AclChange {
  /** AccessorIDs of tokens created, updated or deleted, and of tokens linking a changed policy. */
  affected: string[];
}

export const isAclCommand = (cmd: { type?: unknown }): cmd is AclCommand =>
  typeof cmd?.type === 'string' && cmd.type.startsWith('acl-');

function refuse(
  message: string,
  field?: string,
  code: 'INVALID_ARGUMENT' | 'NOT_FOUND' | 'CONFLICT' = 'INVALID_ARGUMENT',
): never {
  throw new ApplyError(code, message, field);
}

function withToken(acl: AclTables, token: StoredToken, index: number): AclTables {
  const tokens = new Map(acl.tokens);
  const bySecret = new Map(acl.bySecret);
  const old = tokens.get(token.AccessorID);
  if (old) bySecret.delete(old.SecretHash);
  tokens.set(token.AccessorID, token);
  bySecret.set(token.SecretHash, token.AccessorID);
  return { ...acl, tokens, bySecret, index };
}

function checkPolicies(acl: AclTables, ids: readonly string[]): void {
  for (const id of ids)
    if (!acl.policies.has(id)) refuse(`Invalid Token: cannot find policy ${id}`, 'Policies', 'NOT_FOUND');
}

function setToken(
  acl: AclTables,
  input: TokenInput,
  create: boolean,
  index: number,
): { next: AclTables; change: AclChange } {
  const token = normalise(input);
  const existing = acl.tokens.get(token.AccessorID);
  if (create) {
    if (existing) refuse('Invalid Token: AccessorID is already in use', 'AccessorID', 'CONFLICT');
    if (acl.bySecret.has(token.SecretHash)) refuse('Invalid Token: SecretID is already in use', 'SecretID', 'CONFLICT');
  } else {
    if (!existing) refuse(`Cannot find token ${JSON.stringify(token.AccessorID)}`, 'AccessorID', 'NOT_FOUND');
    if (token.SecretHash !== existing.SecretHash) refuse("Changing a token's SecretID is not permitted", 'SecretID');
    if ((token.ExpirationTime ?? '') !== (existing.ExpirationTime ?? ''))
      refuse('Cannot change expiration time', 'ExpirationTime');
    token.CreateTime = existing.CreateTime;
  }
  checkPolicies(acl, token.PolicyIDs);
  if (existing && sameContent(existing, token)) return { next: acl, change: { affected: [] } };
  const stored = deepFreeze({ ...token, CreateIndex: existing?.CreateIndex ?? index, ModifyIndex: index });
  return { next: withToken(acl, stored, index), change: { affected: [token.AccessorID] } };
}

function deleteToken(acl: AclTables, accessorId: string, index: number): { next: AclTables; change: AclChange } {
  if (accessorId === ANONYMOUS_ACCESSOR_ID)
    refuse('Delete operation not permitted on the anonymous token', 'AccessorID');
  const existing = acl.tokens.get(accessorId);
  if (!existing) return { next: acl, change: { affected: [] } };
  const tokens = new Map(acl.tokens);
  const bySecret = new Map(acl.bySecret);
  tokens.delete(accessorId);
  bySecret.delete(existing.SecretHash);
  return { next: { ...acl, tokens, bySecret, index }, change: { affected: [accessorId] } };
}

/** Tokens that link a policy: their rights move with it. */
function linking(acl: AclTables, policyId: string): string[] {
  return [...acl.tokens.values()]
    .filter((t) => t.PolicyIDs.includes(policyId))
    .map((t) => t.AccessorID)
    .sort(byString);
}

function setPolicy(
  acl: AclTables,
  input: PolicyInput,
  create: boolean,
  index: number,
): { next: AclTables; change: AclChange } {
  const policy = normalise(input);
  const existing = acl.policies.get(policy.ID);
  if (create && existing) refuse('Invalid Policy: ID is already in use', 'ID', 'CONFLICT');
  if (!create && !existing) refuse(`Cannot find policy ${JSON.stringify(policy.ID)}`, 'ID', 'NOT_FOUND');
  for (const other of acl.policies.values()) {
    if (other.ID !== policy.ID && other.Name === policy.Name)
      refuse(`Invalid Policy: A Policy with Name ${JSON.stringify(policy.Name)} already exists`, 'Name', 'CONFLICT');
  }
  if (policy.ID === MANAGEMENT_POLICY_ID) {
    if (policy.Rules !== MANAGEMENT_RULES)
      refuse('Changing the Rules for the builtin global-management policy is not permitted', 'Rules');
    policy.parsed = emptyRules();
  }
  if (existing && sameContent(existing, policy)) return { next: acl, change: { affected: [] } };
  const policies = new Map(acl.policies);
  policies.set(policy.ID, deepFreeze({ ...policy, CreateIndex: existing?.CreateIndex ?? index, ModifyIndex: index }));
  return { next: { ...acl, policies, index }, change: { affected: linking(acl, policy.ID) } };
}

function deletePolicy(acl: AclTables, id: string, index: number): { next: AclTables; change: AclChange } {
  if (id === MANAGEMENT_POLICY_ID)
    refuse('Delete operation not permitted on the builtin global-management policy', 'ID');
  if (!acl.policies.has(id)) return { next: acl, change: { affected: [] } };
  const policies = new Map(acl.policies);
  policies.delete(id);
  // Links to a deleted policy are dropped from the tokens, so a later policy can never inherit them.
  const affected = linking(acl, id);
  let next: AclTables = { ...acl, policies, index };
  for (const accessor of affected) {
    const t = acl.tokens.get(accessor)!;
    next = withToken(
      next,
      deepFreeze({ ...t, PolicyIDs: t.PolicyIDs.filter((p) => p !== id), ModifyIndex: index }),
      index,
    );
  }
  return { next, change: { affected } };
}

function bootstrap(
  acl: AclTables,
  cmd: Extract<AclCommand, { type: 'acl-bootstrap' }>,
  index: number,
): { next: AclTables; change: AclChange } {
  if (cmd.initial && acl.bySecret.has(cmd.token.SecretHash)) return { next: acl, change: { affected: [] } };
  if (!cmd.initial && acl.bootstrapIndex > 0)
    refuse(`ACL bootstrap no longer allowed (reset index: ${acl.bootstrapIndex})`, undefined, 'CONFLICT');
  const { next, change } = setToken(acl, { ...cmd.token, PolicyIDs: [MANAGEMENT_POLICY_ID] }, true, index);
  return { next: acl.bootstrapIndex > 0 ? next : { ...next, bootstrapIndex: index }, change };
}

/** Runs one ACL command against `acl` at `index`; throws ApplyError to refuse. Unchanged state comes back as the same object. */
export function applyAcl(acl: AclTables, cmd: AclCommand, index: number): { next: AclTables; change: AclChange } {
  switch (cmd.type) {
    case 'acl-bootstrap':
      return bootstrap(acl, cmd, index);
    case 'acl-token-set':
      return setToken(acl, cmd.token, cmd.create === true, index);
    case 'acl-token-delete':
      return deleteToken(acl, cmd.accessorId, index);
    case 'acl-policy-set':
      return setPolicy(acl, cmd.policy, cmd.create === true, index);
    case 'acl-policy-delete':
      return deletePolicy(acl, cmd.id, index);
    default:
      return refuse(`unknown ACL command ${JSON.stringify((cmd as { type?: unknown }).type)}`, 'type');
  }
}

/** The ACL tables as snapshot JSON (sorted, so equal states give equal text). */
export function serialiseAcl(acl: AclTables): object {
  const sorted = <V>(m: ReadonlyMap<string, V>) => [...m.keys()].sort(byString).map((k) => m.get(k)!);
  return {
    tokens: sorted(acl.tokens),
    policies: sorted(acl.policies),
    bootstrapIndex: acl.bootstrapIndex,
    index: acl.index,
  };
}

export function parseAcl(doc: unknown): AclTables {
  if (doc === undefined) return emptyAclTables();
  const d = doc as { tokens: StoredToken[]; policies: StoredPolicy[]; bootstrapIndex: number; index: number };
  return {
    tokens: new Map(d.tokens.map((t) => [t.AccessorID, deepFreeze(t)])),
    bySecret: new Map(d.tokens.map((t) => [t.SecretHash, t.AccessorID])),
    policies: new Map(d.policies.map((p) => [p.ID, deepFreeze(p)])),
    bootstrapIndex: d.bootstrapIndex,
    index: d.index,
  };
}
