// Child process: a proxyless @grpc/grpc-js-xds client of xds:///<target>.
// grpc-js-xds registers global resolvers, so it lives in its own process.
// Bootstrap comes from GRPC_XDS_BOOTSTRAP_CONFIG (set by the parent).
// Prints one JSON line per RPC: {"ok":true,"server":"<instance>"} or {"ok":false,"error":"..."}.
import * as grpc from '@grpc/grpc-js';

const xds = require('@grpc/grpc-js-xds');

const target = process.argv[2];
const method = process.argv[3];
if (!target || !method) throw new Error('usage: grpc-js-client.ts <xds:///name> <method path>');
xds.register();

const client = new grpc.Client(target, grpc.credentials.createInsecure());
const raw = (b: Buffer) => b;

// Optional request metadata (JSON object in RPC_METADATA), for route header matches.
const metadata = new grpc.Metadata();
for (const [k, v] of Object.entries(JSON.parse(process.env['RPC_METADATA'] ?? '{}') as Record<string, string>))
  metadata.set(k, v);

function once(): Promise<void> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      method!,
      raw,
      raw,
      Buffer.alloc(0),
      metadata,
      { deadline: Date.now() + 2_000 },
      (err, reply) => {
        process.stdout.write(
          `${JSON.stringify(err ? { ok: false, error: `${err.code} ${err.details}` } : { ok: true, server: reply!.toString() })}\n`,
        );
        resolve();
      },
    );
  });
}

let running = true;
process.on('SIGTERM', () => {
  running = false;
});
process.stdin.on('end', () => {
  running = false;
});
process.stdin.resume();

(async () => {
  while (running) {
    await once();
    await new Promise((r) => setTimeout(r, 25));
  }
  client.close();
  process.exit(0);
})();
