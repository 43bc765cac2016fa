// Consul's ACL error texts, so clients that match on them keep working:
// "ACL not found" for an unknown or expired token, and "Permission denied: token
// with AccessorID '…' lacks permission 'service:write' on \"web\"".
import { HubError } from '../errors';
import type { Authorizer, Level, Resource } from './authorizer';
import { ANONYMOUS_ACCESSOR_ID } from './types';

export const ACL_NOT_FOUND = 'ACL not found';
export const ACL_DISABLED = 'ACL support disabled';

export function aclNotFound(): HubError {
  return new HubError('PERMISSION_DENIED', ACL_NOT_FOUND);
}

export function permissionDenied(
  authz: Pick<Authorizer, 'accessorId'>,
  resource: Resource,
  level: Level,
  name?: string,
): HubError {
  const anonymous = authz.accessorId === ANONYMOUS_ACCESSOR_ID;
  const who = anonymous ? 'anonymous token' : `token with AccessorID '${authz.accessorId}'`;
  const on = name !== undefined && name !== '' ? ` on "${name}"` : '';
  const hint = anonymous ? '. The anonymous token is used implicitly when a request does not specify a token.' : '';
  return new HubError(
    'PERMISSION_DENIED',
    `Permission denied: ${who} lacks permission '${resource}:${level}'${on}${hint}`,
  );
}

/** Throws Consul's permission-denied error unless the authorizer allows the access. */
export function requireAccess(authz: Authorizer, resource: Resource, level: Level, name?: string): void {
  if (!authz.allowed(resource, level, name)) throw permissionDenied(authz, resource, level, name);
}
