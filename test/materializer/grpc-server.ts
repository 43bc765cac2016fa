// A real Subscribe gRPC server (the hub's own handler) on 127.0.0.1:0 over any
// Publisher, for the gRPC source's tests.
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import { addSubscribeService } from '../../src/subscribe/grpc';
import type { Publisher } from '../../src/subscribe/types';

export async function startSubscribeServer(publisher: Publisher): Promise<{ address: string; close(): void }> {
  const server = new grpc.Server();
  addSubscribeService(server, { publisher, logger: pino({ level: 'silent' }) });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return { address: `127.0.0.1:${port}`, close: () => server.forceShutdown() };
}
