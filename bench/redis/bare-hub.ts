// Bench hub process, bare mode: the limit bench/redis compares the hubs with. The
// least a Node process must do to play a hub's part in that bench, on the same
// libraries: fastify takes `PUT /v1/catalog/register`, writes queued meanwhile go
// to Redis in one Lua call (INCRBY + one XADD per write, the stream ID being the
// index, as the hub's Redis log does), optionally WAIT for replicas, and a write is
// answered once this process's own tail (XREAD BLOCK on a second connection) has
// read it back. The tail parses each entry into a map by node name, and
// `GET /v1/catalog/node/:name?index=N` answers once the tail is past N (a blocking
// read, as the probes use it). No validation beyond the node's name, no catalog,
// no views, no xDS, no metrics, no logs.
//
//   node --import tsx bench/redis/bare-hub.ts --redis redis://127.0.0.1:PORT [--wait-replicas N]
//
// Prints "bare hub listening http=URL" once it serves.

import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import Redis from 'ioredis';

const { values } = parseArgs({
  options: { redis: { type: 'string' }, 'wait-replicas': { type: 'string', default: '0' } },
});
if (!values.redis) throw new Error('--redis URL is required');
const waitReplicas = Number(values['wait-replicas']);
const COUNTER = 'bare:index';
const STREAM = 'bare:log';
const APPEND = `
local n = #ARGV
local last = redis.call('INCRBY', KEYS[1], n)
local first = last - n + 1
for i = 1, n do
  redis.call('XADD', KEYS[2], string.format('%d-1', first + i - 1), 'p', ARGV[i])
end
return string.format('%d', first)
`;

const writer = new Redis(values.redis);
const reader = new Redis(values.redis);
writer.defineCommand('bareAppend', { numberOfKeys: 2, lua: APPEND });
const append = (payloads: string[]) =>
  (writer as unknown as { bareAppend(k1: string, k2: string, ...argv: string[]): Promise<string> }).bareAppend(
    COUNTER,
    STREAM,
    ...payloads,
  );

interface Waiter {
  /** Called once the tail has read past `after`. */
  after: number;
  done(): void;
}
let applied = 0;
let waiters: Waiter[] = [];
const nodes = new Map<string, Record<string, unknown>>();

/** Resolves once the tail has read past `after` (at once if it already has). */
function applyPast(after: number): Promise<void> {
  if (applied > after) return Promise.resolve();
  return new Promise((done) => waiters.push({ after, done }));
}

async function tail(): Promise<void> {
  let last = '0-0';
  for (;;) {
    const reply = (await reader.xread('COUNT', 1000, 'BLOCK', 1000, 'STREAMS', STREAM, last)) as
      | [string, [string, string[]][]][]
      | null;
    if (!reply) continue;
    for (const [id, fields] of reply[0]![1]) {
      const entry = JSON.parse(fields[1]!) as Record<string, unknown>;
      applied = Number.parseInt(id, 10);
      nodes.set(entry.Node as string, entry);
      last = id;
    }
    const ready = waiters.filter((w) => applied > w.after);
    waiters = waiters.filter((w) => applied <= w.after);
    for (const w of ready) w.done();
  }
}

/** Writes queued while an append is out; they go together in the next (group commit). */
let queued: { payload: string; landed(index: number): void; failed(err: unknown): void }[] = [];
let sending = false;
async function flush(): Promise<void> {
  if (sending || queued.length === 0) return;
  sending = true;
  const batch = queued;
  queued = [];
  try {
    const first = Number(await append(batch.map((w) => w.payload)));
    if (waitReplicas > 0 && (await writer.wait(waitReplicas, 5000)) < waitReplicas)
      throw new Error('not replicated in time');
    batch.forEach((w, i) => w.landed(first + i));
  } catch (err) {
    for (const w of batch) w.failed(err);
  } finally {
    sending = false;
    void flush();
  }
}

const app = Fastify({ logger: false });
app.put('/v1/catalog/register', async (req, reply) => {
  const body = req.body as { Node?: unknown } | null;
  if (typeof body?.Node !== 'string') return reply.code(400).send('Node: required');
  const index = await new Promise<number>((landed, failed) => {
    queued.push({ payload: JSON.stringify(body), landed, failed });
    void flush();
  });
  await applyPast(index - 1);
  return reply.header('X-Consul-Index', String(index)).send(true);
});
app.get<{ Params: { name: string }; Querystring: { index?: string } }>('/v1/catalog/node/:name', async (req, reply) => {
  const after = Number(req.query.index ?? 0);
  // The probes always ask with a wait of 10 s; past it, answer with what there is.
  await Promise.race([applyPast(after), new Promise((r) => setTimeout(r, 10_000).unref())]);
  const found = nodes.get(req.params.name);
  return reply
    .header('X-Consul-Index', String(applied))
    .type('application/json')
    .send(found ? JSON.stringify({ Node: found, Services: {} }) : 'null');
});

void tail();
app.listen({ host: '127.0.0.1', port: 0 }).then((url) => console.log(`bare hub listening http=${url}`));
