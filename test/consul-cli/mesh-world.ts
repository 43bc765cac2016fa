// What the `consul connect envoy` tests share: a hub with xDS, the CLI's target,
// a scratch folder for HCL files, and `api1`, a backend whose /who answers the
// SPIFFE ID its caller's sidecar passed on in X-Forwarded-Client-Cert.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hub } from '../../src/hub';
import { type Backend, startBackend, startHubWithXds } from '../envoy/harness';
import type { ConsulTarget } from '../helpers/consul-cli';
import type { Envoy } from '../helpers/envoy';

export interface CliMeshWorld {
  hub: Hub;
  target: ConsulTarget;
  dir: string;
  api: Backend;
  /** Envoys the test started: stopped by close(). */
  envoys: Envoy[];
  close(): Promise<void>;
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
  return {
    hub,
    target: { httpAddr: `127.0.0.1:${hub.httpPort}` },
    dir,
    api,
    envoys,
    async close() {
      for (const e of envoys) await e.stop().catch(() => undefined);
      await api.close();
      await hub.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
