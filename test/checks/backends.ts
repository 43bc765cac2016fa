// Probe targets for check tests: an HTTP health endpoint, a TCP listener and a
// gRPC server answering grpc.health.v1 — each can be turned bad and good again.

import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Server } from 'node:net';
import * as grpc from '@grpc/grpc-js';

export interface HttpHealth {
  url: string;
  /** The status code the endpoint answers (200 healthy). */
  setStatus(code: number): void;
  requests(): number;
  /** Resolves once the endpoint has answered `n` requests in all. */
  untilRequests(n: number): Promise<void>;
  close(): Promise<void>;
}

export async function startHttpHealth(): Promise<HttpHealth> {
  let status = 200;
  let requests = 0;
  const waiters = new Set<() => void>();
  const server = createHttpServer((_req, res) => {
    requests++;
    for (const w of waiters) w();
    res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'not ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/health`,
    setStatus: (code) => (status = code),
    requests: () => requests,
    untilRequests: (n) =>
      new Promise((resolve) => {
        const check = () => {
          if (requests < n) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export interface TcpListener {
  address: string;
  /** Stops accepting (connections are refused) or accepts again, on the same port. */
  setOpen(open: boolean): Promise<void>;
  close(): Promise<void>;
}

export async function startTcp(): Promise<TcpListener> {
  let server: Server | undefined;
  let port = 0;
  const open = async () => {
    server = createTcpServer((socket) => socket.end());
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  };
  const shut = async () => {
    if (!server) return;
    const s = server;
    server = undefined;
    await new Promise<void>((r) => s.close(() => r()));
  };
  await open();
  return {
    address: `127.0.0.1:${port}`,
    setOpen: (o) => (o ? (server ? Promise.resolve() : open()) : shut()),
    close: shut,
  };
}

/** Serves grpc.health.v1.Health/Check on a gRPC server (raw bytes: one-field messages). */
export function addHealthService(server: grpc.Server): { setServing(serving: boolean): void } {
  let serving = true;
  const raw = (b: Buffer) => b;
  server.addService(
    {
      Check: {
        path: '/grpc.health.v1.Health/Check',
        requestStream: false,
        responseStream: false,
        requestSerialize: raw,
        requestDeserialize: raw,
        responseSerialize: raw,
        responseDeserialize: raw,
      },
    },
    {
      // HealthCheckResponse { status = 1 (SERVING) | 2 (NOT_SERVING) }
      Check: (_call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) =>
        cb(null, Buffer.from([0x08, serving ? 1 : 2])),
    },
  );
  return { setServing: (s) => (serving = s) };
}

export async function startGrpcHealth(): Promise<{
  address: string;
  setServing(serving: boolean): void;
  close(): Promise<void>;
}> {
  const server = new grpc.Server();
  const health = addHealthService(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    address: `127.0.0.1:${port}`,
    setServing: health.setServing,
    close: () => new Promise((r) => server.tryShutdown(() => r())),
  };
}
