// SDS secrets (docs/mesh.md "What a sidecar gets"): a service's leaf (its
// certificate chain and private key) and the trust bundle (every root the CA
// trusts, the rotated-out one too until it is pruned). A renewal or a root
// rotation changes only these, so no listener or cluster changes with them.
import type { CaRoot, IssuedLeaf } from '../../../connect/types';

export function leafSecret(name: string, leaf: IssuedLeaf): Record<string, unknown> {
  return {
    name,
    tls_certificate: {
      certificate_chain: { inline_string: leaf.CertPEM },
      private_key: { inline_string: leaf.PrivateKeyPEM },
    },
  };
}

export function rootsSecret(name: string, roots: readonly CaRoot[]): Record<string, unknown> {
  return {
    name,
    validation_context: { trusted_ca: { inline_string: `${roots.map((r) => r.RootCert.trim()).join('\n')}\n` } },
  };
}
