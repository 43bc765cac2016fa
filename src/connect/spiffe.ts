// SPIFFE IDs in this mesh (docs/mesh.md): a service is
// spiffe://<trust domain>/ns/default/dc/<datacenter>/svc/<service>.

export function serviceSpiffeId(trustDomain: string, datacenter: string, service: string): string {
  return `spiffe://${trustDomain}/ns/default/dc/${datacenter}/svc/${service}`;
}

/**
 * The names a SPIFFE ID (and so a leaf or an intention) can carry: letters,
 * digits, `_`, `.` and `-`, which need no escaping in the URI's path.
 */
export const MESH_SERVICE_NAME = /^[A-Za-z0-9_.-]+$/;

/** Why a service cannot be in the mesh under this name (undefined: it can). */
export function meshNameProblem(name: string): string | undefined {
  return MESH_SERVICE_NAME.test(name)
    ? undefined
    : `"${name}" cannot be in the mesh: a certificate's SPIFFE ID carries only letters, digits, "_", "." and "-"`;
}
