// What the `consul connect envoy` tests share: a hub with xDS, the CLI's target,
// a scratch folder for HCL files, and `api1`, a backend whose /who answers the
// SPIFFE ID its caller's sidecar passed on in X-Forwarded-Client-Cert.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hub } from '../../src/hub';
import { type Backend, startBackend, startHubWithXds } from '../envoy/harness';
import { type ConsulTarget, runConsul } from '../helpers/consul-cli';
import type { Envoy } from '../helpers/envoy';

export interface CliMeshWorld {
  hub: Hub;
  target: ConsulTarget;
  dir: string;
  api: Backend;
  /** Envoys the test started: stopped by close(). */
  envoys: Envoy[];
  /** Writes `body` to `<name>.hcl` in the scratch folder and runs `consul <args…> <file>`. */
  write(name: string, body: string, args: string[]): Promise<void>;
  /** `-grpc-addr` for `consul connect envoy`: the hub's gRPC port. */
  grpcAddr(): string[];
  /** What `consul connect envoy -bootstrap -sidecar-for <id>` prints, parsed. */
  sidecarBootstrap(serviceId: string): Promise<Record<string, any>>;
  /** What `consul connect envoy -gateway=<kind> -register -service <name> -address 127.0.0.1:<port> -bootstrap` prints, parsed. */
  gatewayBootstrap(kind: 'ingress' | 'terminating', name: string, port: number): Promise<Record<string, any>>;
  close(): Promise<void>;
}

type Statuses = { listener_statuses?: { local_address?: { socket_address?: Record<string, unknown> } }[] };

/** The addresses an Envoy's listeners are bound on (its admin /listeners). */
export async function boundAddresses(envoy: Envoy): Promise<(Record<string, unknown> | undefined)[]> {
  const statuses = JSON.parse(await envoy.admin('/listeners?format=json')) as Statuses;
  return statuses.listener_statuses?.map((l) => l.local_address?.socket_address) ?? [];
}

export async function cliMeshWorld(nodeName: string): Promise<CliMeshWorld> {
  const hub = await startHubWithXds({ nodeName });
  const dir = await mkdtemp(join(tmpdir(), `xdshub-${nodeName}-`));
  const api = await startBackend('api1', (req, res) => {
    if (req.url !== '/who') return false;
    const xfcc = String(req.headers['x-forwarded-client-cert'] ?? '');
    res.end(/URI=([^;,]+)/.exec(xfcc)?.[1] ?? 'no client certificate');
    return true;
  });
  const envoys: Envoy[] = [];
  const target = { httpAddr: `127.0.0.1:${hub.httpPort}` };
  const grpcAddr = ['-grpc-addr', `127.0.0.1:${hub.grpcPort}`];
  return {
    hub,
    target,
    dir,
    api,
    envoys,
    async write(name, body, args) {
      const file = join(dir, `${name}.hcl`);
      await writeFile(file, body);
      await runConsul([...args, file], target);
    },
    grpcAddr: () => grpcAddr,
    async sidecarBootstrap(serviceId) {
      const { stdout } = await runConsul(
        ['connect', 'envoy', '-bootstrap', '-sidecar-for', serviceId, ...grpcAddr],
        target,
      );
      return JSON.parse(stdout);
    },
    async gatewayBootstrap(kind, name, port) {
      const args = ['connect', 'envoy', `-gateway=${kind}`, '-register', '-service', name];
      const { stdout } = await runConsul([...args, '-address', `127.0.0.1:${port}`, '-bootstrap', ...grpcAddr], target);
      return JSON.parse(stdout);
    },
    async close() {
      for (const e of envoys) await e.stop().catch(() => undefined);
      await api.close();
      await hub.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
