// Names of a sidecar's resources (docs/mesh.md "What a sidecar gets"), as
// Consul names them where it has a convention: the public listener
// `public_listener:<addr>:<port>`, the app's cluster `local_app`, an upstream's
// listener `<destination>:<addr>:<port>` and its routes `<destination>`, and a
// cluster that reaches a service's sidecars `<cluster>.default.<dc>.internal.<trust domain>`
// (also its TLS SNI). Secrets are named by the SPIFFE ID they stand for: a
// service's leaf by the service's ID, the trust bundle by the trust domain's.
import { serviceSpiffeId } from '../../../connect/spiffe';

export const LOCAL_APP = 'local_app';

/** The mesh counterpart of a discovery-chain cluster (`S`, or `<subset>.S`). */
export function meshClusterName(plainCluster: string, datacenter: string, trustDomain: string): string {
  return `${plainCluster}.default.${datacenter}.internal.${trustDomain}`;
}

export function publicListenerName(address: string, port: number): string {
  return `public_listener:${address}:${port}`;
}

export function upstreamListenerName(destination: string, address: string, port: number): string {
  return `${destination}:${address}:${port}`;
}

export function leafSecretName(trustDomain: string, datacenter: string, service: string): string {
  return serviceSpiffeId(trustDomain, datacenter, service);
}

export function rootsSecretName(trustDomain: string): string {
  return `spiffe://${trustDomain}`;
}

/** An SDS reference over ADS (the same stream as everything else). */
export function sdsRef(name: string): Record<string, unknown> {
  return { name, sds_config: { ads: {}, resource_api_version: 'V3' } };
}
