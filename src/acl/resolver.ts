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

export function createAclResolver(catalog: Catalog, settings: AclSettings, now: () => number = Date.now): AclResolver {
  const listeners = new Set<(affected: AclAffected) => void>();
  let tables: AclTables | undefined;
  const byAccessor = new Map<string, Authorizer>();
  let expiryTimer: NodeJS.Timeout | undefined;

  const emit = (affected: AclAffected) => {
    if (affected !== 'all' && affected.length === 0) return;
    for (const l of listeners) l(affected);
  };

  /** Arms one timer for the next token expiry, so streams held by that token end when it expires. */
  function armExpiry(): void {
    if (expiryTimer) clearTimeout(expiryTimer);
    expiryTimer = undefined;
    if (!settings.enabled) return;
    const t = now();
    let next = Infinity;
    for (const token of catalog.acl().tokens.values()) {
      const at = token.ExpirationTime ? Date.parse(token.ExpirationTime) : NaN;
      if (at > t && at < next) next = at;
    }
    if (next === Infinity) return;
    // setTimeout takes at most ~24.8 days; a later expiry re-arms when this fires.
    expiryTimer = setTimeout(() => {
      const at = now();
      emit([...catalog.acl().tokens.values()].filter((tk) => expired(tk, at) && tk.ExpirationTime && Date.parse(tk.ExpirationTime) > at - 2 * 24 * 3600_000).map((tk) => tk.AccessorID));
      armExpiry();
    }, Math.min(next - t + 5, 2 ** 31 - 1));
    expiryTimer.unref();
  }

  const offApplied = catalog.onApplied((_index, _events, info) => {
    if (info?.aclAffected === undefined) return;
    if (info.aclAffected === 'all' || info.aclAffected.length > 0) armExpiry();
    emit(info.aclAffected);
  });
  const offReset = catalog.onReset(() => {
    armExpiry();
    emit('all');
  });
  armExpiry();

  function current(): AclTables {
    const t = catalog.acl();
    if (t !== tables) {
      tables = t;
      byAccessor.clear();
    }
    return t;
  }

  function authorizerOf(token: StoredToken): Authorizer {
    let authz = byAccessor.get(token.AccessorID);
    if (authz === undefined) {
      const acl = current();
      const policies = token.PolicyIDs.map((id) => acl.policies.get(id))
        .filter((p) => p !== undefined)
        .filter((p) => p.Datacenters.length === 0 || p.Datacenters.includes(settings.datacenter));
      authz = createAuthorizer(mergeRules(policies.map((p) => p.parsed)), {
        accessorId: token.AccessorID,
        anonymous: token.AccessorID === ANONYMOUS_ACCESSOR_ID,
        defaultPolicy: settings.defaultPolicy,
        management: token.PolicyIDs.includes(MANAGEMENT_POLICY_ID),
      });
      byAccessor.set(token.AccessorID, authz);
    }
    return authz;
  }

  function tokenBySecret(secret: string): StoredToken | undefined {
    const acl = current();
    const accessor = acl.bySecret.get(sha256Hex(secret === '' ? 'anonymous' : secret));
    const token = accessor === undefined ? undefined : acl.tokens.get(accessor);
    return token && !expired(token, now()) ? token : undefined;
  }

  return {
    settings,
    resolve(secret) {
      if (!settings.enabled) return DISABLED;
      const token = tokenBySecret(secret);
      if (!token) throw aclNotFound();
      return authorizerOf(token);
    },
    resolveAccessor(accessorId) {
      if (!settings.enabled) return DISABLED;
      const token = current().tokens.get(accessorId);
      if (!token || expired(token, now())) throw aclNotFound();
      return authorizerOf(token);
    },
    token: tokenBySecret,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      offApplied();
      offReset();
      if (expiryTimer) clearTimeout(expiryTimer);
      listeners.clear();
    },
  };
}
