// --tls-client-cert-token (HTTP only): a request that carries no token may act
// as the token its client certificate's subject CN names by AccessorID. An
// AccessorID is no secret (403 texts and token lists show it), so the CN alone
// proves nothing: only the AccessorIDs the operator listed in
// --tls-client-cert-token-allow are mapped, and never one whose rights reach
// ACL management (global-management, the initial management token, acl:write),
// since that token could mint any other. docs/security.md, "Certificates as tokens".
import type { Authorizer } from '../acl/authorizer';
import type { AclResolver } from '../acl/resolver';
import { HubError } from '../errors';

/**
 * The authorizer a certificate with this CN acts as, or undefined when the CN is
 * not an allowed AccessorID (the request is then anonymous, as without a certificate).
 */
export function certTokenAuthorizer(
  resolver: AclResolver,
  allowed: readonly string[],
  cn: string,
): Authorizer | undefined {
  if (!allowed.includes(cn)) return undefined;
  const authz = resolver.resolveAccessor(cn); // a deleted or expired token: "ACL not found"
  if (authz.allowsAll || authz.allowed('acl', 'write')) {
    throw new HubError(
      'PERMISSION_DENIED',
      `Permission denied: a client certificate may not act as token '${cn}': it grants ACL management ` +
        "(global-management or acl:write); send that token's secret instead",
    );
  }
  return authz;
}
