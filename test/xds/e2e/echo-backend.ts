// A tiny gRPC backend: one unary method that answers with the instance's name.
// Raw bytes in and out (no proto), so the Python client needs no generated stubs.
import * as grpc from '@grpc/grpc-js';

export const ECHO_METHOD = '/xdshub.test.Echo/Who';

const raw = {
  serialize: (b: Buffer) => b,
  deserialize: (b: Buffer) => b,
};

export interface EchoBackend {
  name: string;
  port: number;
  /** RPCs this instance has answered. */
  served(): number;
  close(): Promise<void>;
}

export async function startEcho(name: string): Promise<EchoBackend> {
  const server = new grpc.Server();
  let served = 0;
  server.addService(
    {
      Who: {
        path: ECHO_METHOD,
        requestStream: false,
        responseStream: false,
        requestSerialize: raw.serialize,
        requestDeserialize: raw.deserialize,
        responseSerialize: raw.serialize,
        responseDeserialize: raw.deserialize,
      },
    },
    {
      Who: (_call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
        served++;
        callback(null, Buffer.from(name));
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    name,
    port,
    served: () => served,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
