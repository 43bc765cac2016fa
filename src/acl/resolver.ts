// Token secrets → Authorizers, from the ACL tables the catalog folded from the
// log (so every hub resolves alike). Authorizers are cached until the tables
// change; an expired token resolves as not found. onChange tells long-lived
// holders (Subscribe and xDS streams, blocking queries) which tokens' rights
// may have moved: after an ACL write, a restore, or when a token expires.
import type { Catalog } from '../catalog/catalog';
import { type Authorizer, allowAll, createAuthorizer, mergeRules } from './authorizer';
import { aclNotFound } from './deny';
import { sha256Hex } from './secrets';
import type { AclTables } from './state';
import { ANONYMOUS_ACCESSOR_ID, MANAGEMENT_POLICY_ID, type StoredToken } from './types';

export interface AclSettings {
  enabled: boolean;
  defaultPolicy: 'allow' | 'deny';
  /** Policies limited to other datacenters (their Datacenters list) do not apply on this hub. */
  datacenter: string;
}

export type AclAffected = readonly string[] | 'all';

export interface AclResolver {
  readonly settings: AclSettings;
  /** The authorizer of a token secret ('' = the anonymous token). Throws PERMISSION_DENIED "ACL not found" for an unknown or expired one. */
  resolve(secret: string): Authorizer;
  /** The authorizer of a token by its AccessorID (a client certificate naming its token); same errors as resolve. */
  resolveAccessor(accessorId: string): Authorizer;
  /** The stored token behind a secret, when it exists and has not expired. */
  token(secret: string): StoredToken | undefined;
  /** Called with the AccessorIDs whose rights may have changed (or 'all'). Returns unsubscribe. */
  onChange(listener: (affected: AclAffected) => void): () => void;
  close(): void;
}

const DISABLED = allowAll();

function expired(token: StoredToken, now: number): boolean {
  return token.ExpirationTime !== undefined && token.ExpirationTime !== '' && Date.parse(token.ExpirationTime) <= now;
}

/** The resolver's cache and its expiry timer. */
interface State {
  readonly catalog: Catalog;
  readonly settings: AclSettings;
  readonly now: () => number;
  readonly listeners: Set<(affected: AclAffected) => void>;
  tables: AclTables | undefined;
  readonly byAccessor: Map<string, Authorizer>;
  expiryTimer: NodeJS.Timeout | undefined;
}

export function createAclResolver(catalog: Catalog, settings: AclSettings, now: () => number = Date.now): AclResolver {
  const s: State = {
    catalog,
    settings,
    now,
    listeners: new Set(),
    tables: undefined,
    byAccessor: new Map(),
    expiryTimer: undefined,
  };
  const offApplied = catalog.onApplied((_index, _events, info) => {
    if (info?.aclAffected === undefined) return;
    if (info.aclAffected === 'all' || info.aclAffected.length > 0) armExpiry(s);
    emit(s, info.aclAffected);
  });
  const offReset = catalog.onReset(() => {
    armExpiry(s);
    emit(s, 'all');
  });
  armExpiry(s);

  return {
    settings,
    resolve(secret) {
      if (!settings.enabled) return DISABLED;
      const token = tokenBySecret(s, secret);
      if (!token) throw aclNotFound();
      return authorizerOf(s, token);
    },
    resolveAccessor(accessorId) {
      if (!settings.enabled) return DISABLED;
      const token = current(s).tokens.get(accessorId);
      if (!token || expired(token, now())) throw aclNotFound();
      return authorizerOf(s, token);
    },
    token: (secret) => tokenBySecret(s, secret),
    onChange(listener) {
      s.listeners.add(listener);
      return () => s.listeners.delete(listener);
    },
    close() {
      offApplied();
      offReset();
      if (s.expiryTimer) clearTimeout(s.expiryTimer);
      s.listeners.clear();
    },
  };
}

function emit(s: State, affected: AclAffected): void {
  if (affected !== 'all' && affected.length === 0) return;
  for (const l of s.listeners) l(affected);
}

/** Arms one timer for the next token expiry, so streams held by that token end when it expires. */
function armExpiry(s: State): void {
  const { catalog, now } = s;
  if (s.expiryTimer) clearTimeout(s.expiryTimer);
  s.expiryTimer = undefined;
  if (!s.settings.enabled) return;
  const t = now();
  let next = Infinity;
  for (const token of catalog.acl().tokens.values()) {
    const at = token.ExpirationTime ? Date.parse(token.ExpirationTime) : NaN;
    if (at > t && at < next) next = at;
  }
  if (next === Infinity) return;
  // setTimeout takes at most ~24.8 days; a later expiry re-arms when this fires.
  s.expiryTimer = setTimeout(
    () => {
      const at = now();
      emit(
        s,
        [...catalog.acl().tokens.values()]
          .filter(
            (tk) => expired(tk, at) && tk.ExpirationTime && Date.parse(tk.ExpirationTime) > at - 2 * 24 * 3600_000,
          )
          .map((tk) => tk.AccessorID),
      );
      armExpiry(s);
    },
    Math.min(next - t + 5, 2 ** 31 - 1),
  );
  s.expiryTimer.unref();
}

function current(s: State): AclTables {
  const t = s.catalog.acl();
  if (t !== s.tables) {
    s.tables = t;
    s.byAccessor.clear();
  }
  return t;
}

function authorizerOf(s: State, token: StoredToken): Authorizer {
  let authz = s.byAccessor.get(token.AccessorID);
  if (authz === undefined) {
    const acl = current(s);
    const policies = token.PolicyIDs.map((id) => acl.policies.get(id))
      .filter((p) => p !== undefined)
      .filter((p) => p.Datacenters.length === 0 || p.Datacenters.includes(s.settings.datacenter));
    authz = createAuthorizer(mergeRules(policies.map((p) => p.parsed)), {
      accessorId: token.AccessorID,
      anonymous: token.AccessorID === ANONYMOUS_ACCESSOR_ID,
      defaultPolicy: s.settings.defaultPolicy,
      management: token.PolicyIDs.includes(MANAGEMENT_POLICY_ID),
    });
    s.byAccessor.set(token.AccessorID, authz);
  }
  return authz;
}

function tokenBySecret(s: State, secret: string): StoredToken | undefined {
  const acl = current(s);
  const accessor = acl.bySecret.get(sha256Hex(secret === '' ? 'anonymous' : secret));
  const token = accessor === undefined ? undefined : acl.tokens.get(accessor);
  return token && !expired(token, s.now()) ? token : undefined;
}
