// A loopback TCP proxy in front of a real server, for network faults a test must
// place exactly: cut every connection, refuse new ones, or let requests through
// while swallowing the replies (the server acts, the client never hears back).
import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';

export type ProxyMode =
  /** Bytes flow both ways. */
  | 'pass'
  /** Requests reach the server; its replies are dropped. */
  | 'swallow-replies'
  /** Nothing gets through either way (a partition that keeps sockets open). */
  | 'blackhole'
  /** New connections are closed at once (the server is "down"). */
  | 'refuse';

export interface TcpProxy {
  readonly port: number;
  mode(next: ProxyMode): void;
  /** Holds every reply this long (ms) before passing it on: a slow link. Replies keep their order. 0: none. */
  delayReplies(ms: number): void;
  /** Bytes passed on to the server so far, every connection together: shows that a request went out. */
  bytesSent(): number;
  /** Connections opened through the proxy so far (refused ones aside): shows a client dropped one and reconnected. */
  connections(): number;
  /** Closes every open connection (both sides). */
  cut(): void;
  close(): Promise<void>;
}

export async function startProxy(targetPort: number): Promise<TcpProxy> {
  let mode: ProxyMode = 'pass';
  let replyDelayMs = 0;
  let sent = 0;
  let opened = 0;
  const pairs = new Set<[Socket, Socket]>();
  const server = createServer((client) => {
    if (mode === 'refuse') {
      client.destroy();
      return;
    }
    opened++;
    const upstream = connect(targetPort, '127.0.0.1');
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    // Held replies, oldest first, sent by one timer in that order (even after the delay shrinks).
    const held: Array<{ due: number; chunk: Buffer }> = [];
    let timer: NodeJS.Timeout | undefined;
    const release = () => {
      timer = undefined;
      while (held.length > 0 && held[0]!.due <= Date.now()) client.write(held.shift()!.chunk);
      if (held.length > 0) timer = setTimeout(release, held[0]!.due - Date.now());
    };
    const end = () => {
      clearTimeout(timer);
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.on('data', (chunk) => {
      if (mode !== 'pass' && mode !== 'swallow-replies') return;
      sent += chunk.length;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (mode !== 'pass') return;
      if (replyDelayMs === 0 && held.length === 0) return void client.write(chunk);
      held.push({ due: Date.now() + replyDelayMs, chunk });
      timer ??= setTimeout(release, held[0]!.due - Date.now());
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const cut = () => {
    for (const [a, b] of pairs) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
  };
  return {
    port,
    mode: (next) => (mode = next),
    delayReplies: (ms) => (replyDelayMs = ms),
    bytesSent: () => sent,
    connections: () => opened,
    cut,
    async close() {
      cut();
      server.close();
      await once(server, 'close');
    },
  };
}
