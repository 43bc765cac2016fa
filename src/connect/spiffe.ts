// SPIFFE IDs in this mesh (docs/mesh.md): a service is
// spiffe://<trust domain>/ns/default/dc/<datacenter>/svc/<service>.

export function serviceSpiffeId(trustDomain: string, datacenter: string, service: string): string {
  return `spiffe://${trustDomain}/ns/default/dc/${datacenter}/svc/${service}`;
}
