// Consul's /v1/acl token and policy bodies ↔ the ACL commands and stored
// records. A new token's SecretID is generated here (or taken from the body),
// hashed, and only the hash goes into the command; the secret itself is shown
// once, in the answer to the create (or bootstrap) call.
import { parseRules } from '../../acl/rules';
import { contentHash, newId, sha256Hex } from '../../acl/secrets';
import type { AclTables } from '../../acl/state';
import {
  MANAGEMENT_POLICY_ID,
  type PolicyInput,
  REDACTED_SECRET,
  type StoredPolicy,
  type StoredToken,
  type TokenInput,
} from '../../acl/types';
import { parseDurationMs } from '../../config';
import { invalid } from '../../errors';
import { Body } from '../body';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const POLICY_NAME = /^[A-Za-z0-9\-_]{1,128}$/;
/** Token fields of Consul's that this hub has no model for: refused when given, never ignored. */
const UNSUPPORTED_TOKEN_FIELDS = [
  'Roles',
  'ServiceIdentities',
  'NodeIdentities',
  'TemplatedPolicies',
  'AuthMethod',
  'Rules',
  'Namespace',
  'Partition',
];

function uuid(body: Body, name: string): string {
  const v = body.str(name);
  if (v !== '' && !UUID.test(v)) throw invalid(body.field(name), `must be a UUID, got ${JSON.stringify(v)}`);
  return v;
}

function refuseUnsupported(body: Body, fields: readonly string[]): void {
  for (const f of fields) {
    const v = body.get(f);
    const empty = v === undefined || v === '' || (Array.isArray(v) && v.length === 0);
    if (!empty) throw invalid(body.field(f), 'is not supported by this hub (docs/security.md)');
  }
}

/** Policies: [{ID}] or [{Name}] → policy IDs (unknown ones are refused by apply or here). */
function policyLinks(body: Body, acl: AclTables): string[] {
  const ids: string[] = [];
  body.objArray('Policies').forEach((link) => {
    const id = link.str('ID');
    const name = link.str('Name');
    if (id !== '') ids.push(id);
    else if (name !== '') {
      const found = [...acl.policies.values()].find((p) => p.Name === name);
      if (!found) throw invalid(`${link.path}.Name`, `cannot find policy ${JSON.stringify(name)}`);
      ids.push(found.ID);
    } else throw invalid(link.path, 'needs ID or Name');
  });
  return [...new Set(ids)];
}

export interface TokenWrite {
  token: TokenInput;
  /** The secret to show in the answer: generated or given on create, '' on update. */
  secret: string;
}

function expiration(body: Body, now: number): string | undefined {
  const time = body.str('ExpirationTime');
  const ttl = body.str('ExpirationTTL');
  if (time !== '' && ttl !== '')
    throw invalid('ExpirationTTL', 'Expiration TTL and Expiration Time cannot both be set');
  if (ttl !== '') {
    const ms = parseDurationMs(ttl, 'ExpirationTTL');
    if (ms <= 0) throw invalid('ExpirationTTL', 'Token Expiration TTL must be positive');
    return new Date(now + ms).toISOString();
  }
  if (time === '') return undefined;
  const at = Date.parse(time);
  if (Number.isNaN(at)) throw invalid('ExpirationTime', `not an RFC 3339 time: ${JSON.stringify(time)}`);
  if (at <= now) throw invalid('ExpirationTime', 'ExpirationTime cannot be in the past');
  return new Date(at).toISOString();
}

function tokenHash(t: Pick<TokenInput, 'Description' | 'PolicyIDs' | 'Local'>): string {
  return contentHash([t.Description, t.PolicyIDs, t.Local]);
}

/** PUT /v1/acl/token (create) or /v1/acl/token/:id (update, `existing` given). */
export function tokenWrite(
  raw: unknown,
  acl: AclTables,
  existing: StoredToken | undefined,
  urlId: string | undefined,
  now = Date.now(),
): TokenWrite {
  const body = Body.of(raw ?? {});
  refuseUnsupported(body, UNSUPPORTED_TOKEN_FIELDS);
  const accessor = uuid(body, 'AccessorID');
  const secretGiven = uuid(body, 'SecretID');
  if (urlId !== undefined && accessor !== '' && accessor !== urlId)
    throw invalid('AccessorID', 'Token Accessor ID in URL and payload do not match');
  const base = {
    Description: body.str('Description'),
    PolicyIDs: policyLinks(body, acl),
    Local: body.bool('Local'),
  };
  if (existing) {
    // A secret in an update must be the token's own (Consul refuses changing it).
    if (secretGiven !== '' && sha256Hex(secretGiven) !== existing.SecretHash)
      throw invalid('SecretID', "Changing a token's SecretID is not permitted");
    const exp = body.str('ExpirationTime');
    const token: TokenInput = {
      AccessorID: existing.AccessorID,
      SecretHash: existing.SecretHash,
      ...base,
      CreateTime: existing.CreateTime,
      ...(existing.ExpirationTime ? { ExpirationTime: existing.ExpirationTime } : {}),
      Hash: tokenHash(base),
    };
    if (
      exp !== '' &&
      (Number.isNaN(Date.parse(exp)) || new Date(Date.parse(exp)).toISOString() !== existing.ExpirationTime)
    ) {
      throw invalid('ExpirationTime', 'Cannot change expiration time');
    }
    return { token, secret: '' };
  }
  const secret = secretGiven || newId();
  const expires = expiration(body, now);
  const token: TokenInput = {
    AccessorID: accessor || newId(),
    SecretHash: sha256Hex(secret),
    ...base,
    CreateTime: new Date(now).toISOString(),
    ...(expires ? { ExpirationTime: expires } : {}),
    Hash: tokenHash(base),
  };
  return { token, secret };
}

/** A management token for bootstrap or the initial management flag. */
export function managementToken(secret: string, accessor: string, description: string, now = Date.now()): TokenInput {
  const base = { Description: description, PolicyIDs: [MANAGEMENT_POLICY_ID], Local: false };
  return {
    AccessorID: accessor,
    SecretHash: sha256Hex(secret),
    ...base,
    CreateTime: new Date(now).toISOString(),
    Hash: tokenHash(base),
  };
}

/** PUT /v1/acl/policy (create) or /v1/acl/policy/:id (update). Parses the rules here, so apply never does. */
export async function policyWrite(raw: unknown, urlId: string | undefined): Promise<PolicyInput> {
  const body = Body.of(raw ?? {});
  refuseUnsupported(body, ['Namespace', 'Partition']);
  const id = uuid(body, 'ID');
  if (urlId === undefined && id !== '') throw invalid('ID', 'Cannot specify the ID when creating a new policy');
  if (urlId !== undefined && id !== '' && id !== urlId)
    throw invalid('ID', 'Policy ID in URL and payload do not match');
  const name = body.requiredStr('Name');
  if (!POLICY_NAME.test(name))
    throw invalid('Name', "Invalid Policy: invalid Name. Only alphanumeric characters, '-' and '_' are allowed");
  const rules = body.str('Rules');
  const parsed = await parseRules(rules);
  const policy = {
    ID: urlId ?? newId(),
    Name: name,
    Description: body.str('Description'),
    Rules: rules,
    Datacenters: body.strArray('Datacenters'),
  };
  return { ...policy, Hash: contentHash([policy.Name, policy.Description, policy.Rules, policy.Datacenters]), parsed };
}

/** A token as Consul's API shows it; `secret` is what may be shown of the SecretID. */
export function tokenOut(acl: AclTables, t: StoredToken, secret: string): Record<string, unknown> {
  const policies = t.PolicyIDs.map((id) => acl.policies.get(id))
    .filter((p) => p !== undefined)
    .map((p) => ({ ID: p.ID, Name: p.Name }));
  return {
    AccessorID: t.AccessorID,
    SecretID: secret,
    Description: t.Description,
    Policies: policies,
    Local: t.Local,
    CreateTime: t.CreateTime,
    ...(t.ExpirationTime ? { ExpirationTime: t.ExpirationTime } : {}),
    Hash: t.Hash,
    CreateIndex: t.CreateIndex,
    ModifyIndex: t.ModifyIndex,
  };
}

/** What of a stored token's secret a read can show: the anonymous token's is public; others' are not kept. */
export function shownSecret(t: StoredToken): string {
  return t.SecretHash === sha256Hex('anonymous') ? 'anonymous' : REDACTED_SECRET;
}

export function policyOut(p: StoredPolicy, full = true): Record<string, unknown> {
  const { parsed: _parsed, Rules, ...rest } = p;
  return full ? { ...rest, Rules } : rest;
}
