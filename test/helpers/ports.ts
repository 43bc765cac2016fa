// A loopback port that was free a moment ago, for servers a test names by port
// (Envoy listeners fixed by a config entry, a consul agent's five ports).
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}
