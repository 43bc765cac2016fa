// End-to-end harness: a real hub (memory log, HTTP API, gRPC server on port 0)
// with the xDS server and the catalog provider attached, plus real client
// processes whose RPC results arrive as JSON lines.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { ALL_PARTS, type Hub } from '../../../src/hub';
import type { CatalogXdsProvider } from '../../../src/xds/translate/catalog-provider';
import type { XdsServer } from '../../../src/xds/transport/server';
import { startHub } from '../../helpers/hub';
import { spawnTracked } from '../../helpers/procs';

export interface XdsHub {
  hub: Hub;
  xds: XdsServer;
  provider: CatalogXdsProvider;
  put(path: string, body?: unknown): Promise<void>;
  close(): Promise<void>;
}

export async function startXdsHub(): Promise<XdsHub> {
  const dataDir = mkdtempSync(join(tmpdir(), 'xdshub-e2e-'));
  const logLevel = (process.env['E2E_LOG'] ?? 'silent') as 'silent';
  const hub = await startHub(
    { dataDir, nodeName: 'e2e-hub', logLevel, xdsDebounceMs: 10, xdsMaxDelayMs: 100 },
    { grpcGraceMs: 200, parts: ALL_PARTS },
  );
  const { xds, provider } = hub;
  await provider.ready();
  const put = async (path: string, body?: unknown) => {
    const res = await fetch(`${hub.httpUrl}${path}`, {
      method: 'PUT',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`PUT ${path}: ${res.status} ${await res.text()}`);
  };
  return {
    hub,
    xds,
    provider,
    put,
    async close() {
      await hub.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface RpcLine {
  ok: boolean;
  server?: string;
  error?: string;
}

/** A client process printing one RpcLine per RPC; waits are driven by its lines, each with a cap. */
export class ClientProcess {
  readonly lines: RpcLine[] = [];
  private readonly waiters = new Set<() => void>();
  private stderr = '';
  private exited = false;

  constructor(
    readonly name: string,
    private readonly child: ChildProcessWithoutNullStreams,
  ) {
    createInterface({ input: child.stdout }).on('line', (text) => {
      try {
        this.lines.push(JSON.parse(text) as RpcLine);
      } catch {
        this.stderr += `stdout: ${text}\n`;
      }
      for (const w of this.waiters) w();
    });
    child.stderr.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-4000);
    });
    child.on('exit', () => {
      this.exited = true;
      for (const w of this.waiters) w();
    });
  }

  /**
   * Resolves when the last `count` RPCs all succeeded, reached only the given
   * server(s) and every one of them; rejects after capMs with what the client saw.
   */
  untilServing(servers: string | readonly string[], count = 8, capMs = 90_000): Promise<void> {
    const wanted = new Set(typeof servers === 'string' ? [servers] : servers);
    return this.until(`serving from ${[...wanted].join('+')}`, capMs, () => {
      if (this.lines.length < count) return false;
      const recent = this.lines.slice(-count);
      return (
        recent.every((l) => l.ok && wanted.has(l.server!)) &&
        [...wanted].every((w) => recent.some((l) => l.server === w))
      );
    });
  }

  /** Resolves when an RPC after the first `from` lines failed; rejects after capMs. */
  untilFailing(from: number, capMs = 90_000): Promise<void> {
    return this.until('failing', capMs, () => this.lines.slice(from).some((l) => !l.ok));
  }

  private until(what: string, capMs: number, done: () => boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (done()) {
          cleanup();
          resolve();
        } else if (this.exited) {
          cleanup();
          reject(new Error(`${this.name} exited; stderr: ${this.stderr}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(
            `${this.name}: not ${what} after ${capMs} ms; last: ${JSON.stringify(this.lines.slice(-5))}; stderr: ${this.stderr}`,
          ),
        );
      }, capMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.stdin.end();
    this.child.kill('SIGTERM');
    await exited;
  }
}

/** xDS bootstrap for proxyless clients (grpc-js-xds and C-core read the same JSON). */
export function bootstrapJson(grpcPort: number, nodeId: string): string {
  return JSON.stringify({
    xds_servers: [
      { server_uri: `127.0.0.1:${grpcPort}`, channel_creds: [{ type: 'insecure' }], server_features: ['xds_v3'] },
    ],
    node: { id: nodeId, cluster: 'e2e', locality: {} },
  });
}

export function startGrpcJsClient(
  grpcPort: number,
  target: string,
  method: string,
  metadata: Record<string, string> = {},
  nodeId = 'grpc-js-e2e',
): ClientProcess {
  const child = spawnTracked(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'grpc-js-client.ts'), target, method],
    {
      env: {
        ...process.env,
        GRPC_XDS_BOOTSTRAP_CONFIG: bootstrapJson(grpcPort, nodeId),
        RPC_METADATA: JSON.stringify(metadata),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  return new ClientProcess('grpc-js-xds client', child);
}

export function startCCoreClient(grpcPort: number, target: string, method: string, dir: string): ClientProcess {
  const file = join(dir, 'c-core-bootstrap.json');
  writeFileSync(file, bootstrapJson(grpcPort, 'c-core-e2e'));
  const child = spawnTracked('/usr/bin/python3', ['-u', join(__dirname, 'c_core_client.py'), target, method], {
    env: { ...process.env, GRPC_XDS_BOOTSTRAP: file },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return new ClientProcess('C-core client', child);
}
