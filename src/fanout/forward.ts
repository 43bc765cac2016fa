// The fan-out hub's HTTP face (docs/fanout.md): the reads its views can answer
// (health and catalog instances of a service, config entries) are served here
// with the upstream's indexes; every other request — writes, and reads of what
// no Subscribe topic carries (nodes, checks, agent, ACL, KV-less extras) — is
// forwarded to the upstream's HTTP API as it came (method, path, query, body,
// token headers), and the upstream's status, headers and body go back.
//
// A forwarded write is answered only once this hub's relays for what the write
// changed (X-Xdshub-Changed) have reached its index, so a client that writes
// here and then reads here sees its write.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CHANGED_HEADER, parseChangedKeys } from './changed';
import type { RelayPublisher } from './relay';

/** GET routes answered from this hub's own views or state; anything else is forwarded. */
const LOCAL_GET = [
  /^\/v1\/health\/(service|connect)\/[^/]+$/,
  /^\/v1\/catalog\/(service|connect)\/[^/]+$/,
  /^\/v1\/catalog\/datacenters$/,
  /^\/v1\/config\/[^/]+(\/[^/]+)?$/,
  // This hub's own xDS streams; the operator tools (/v1/xds/history, diffs, rollouts) are the upstream's.
  /^\/v1\/xds\/(clients|config\/[^/]+)$/,
  /^\/metrics$/,
];
/** REST-JSON xDS (POST /v3/discovery:*) is this hub's own xDS server. */
const LOCAL_POST = [/^\/v3\/discovery:/];

/** Hop-by-hop headers, and what fetch sets itself. */
const SKIP_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
]);

/** The longest a forwarded write's answer waits for this hub to apply it (the upstream acknowledged it either way). */
const APPLY_WAIT_MS = 10_000;

export interface ForwardOptions {
  /** The upstream's HTTP API, e.g. http://host:8500. */
  upstreamHttp: string;
  relay: RelayPublisher;
  /** Told how each forwarded write's wait ended (a metric; tests). */
  onApplyWait?: (outcome: 'applied' | 'timeout') => void;
}

function isLocal(method: string, path: string): boolean {
  if (method === 'GET' || method === 'HEAD') return LOCAL_GET.some((re) => re.test(path));
  if (method === 'POST') return LOCAL_POST.some((re) => re.test(path));
  return false;
}

async function readBody(req: FastifyRequest): Promise<Buffer | undefined> {
  if (req.method === 'GET' || req.method === 'HEAD') return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of req.raw) chunks.push(chunk as Buffer);
  return chunks.length > 0 ? Buffer.concat(chunks) : undefined;
}

/** Installs the forwarding hook: it runs before routing, so forwarded requests never reach a local route. */
export function installForwarding(app: FastifyInstance, options: ForwardOptions): void {
  const base = options.upstreamHttp.replace(/\/$/, '');
  // The upstream's leader headers, put back after the app's own onSend hook (registered
  // before this one) stamped this hub's: a forwarded answer is the upstream's word.
  const leader = new WeakMap<FastifyReply, [string, string][]>();
  app.addHook('onSend', (_req, reply, payload, done) => {
    for (const [name, value] of leader.get(reply) ?? []) reply.header(name, value);
    done(null, payload);
  });
  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    const url = req.raw.url ?? '/';
    const path = url.split('?', 1)[0]!;
    if (isLocal(req.method, path)) return;
    // A client that goes away ends the upstream request (blocking queries included).
    const controller = new AbortController();
    // (The response's close, not the request's: a request emits 'close' once its body is read.)
    const onClose = () => {
      if (!reply.raw.writableFinished) controller.abort();
    };
    reply.raw.once('close', onClose);
    try {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined || SKIP_HEADERS.has(name)) continue;
        headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      const body = await readBody(req);
      let answer: Response;
      try {
        answer = await fetch(base + url, {
          method: req.method,
          headers,
          ...(body ? { body } : {}),
          signal: controller.signal,
          redirect: 'manual',
        });
      } catch (err) {
        if (controller.signal.aborted) return reply.hijack();
        const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
        return reply.code(503).type('text/plain; charset=utf-8').send(`upstream ${base} unreachable: ${cause}`);
      }
      const payload = Buffer.from(await answer.arrayBuffer());
      // Read-your-writes: hold the answer until this hub serves what the write changed.
      const index = answer.headers.get('x-consul-index');
      const changed = parseChangedKeys(answer.headers.get(CHANGED_HEADER) ?? undefined);
      if (req.method !== 'GET' && answer.ok && index && changed.length > 0) {
        const wait = AbortSignal.any([controller.signal, AbortSignal.timeout(APPLY_WAIT_MS)]);
        await options.relay.waitApplied(changed, BigInt(index), wait);
        options.onApplyWait?.(wait.aborted ? 'timeout' : 'applied');
      }
      answer.headers.forEach((value, name) => {
        if (!SKIP_HEADERS.has(name) && name !== 'content-encoding') reply.header(name, value);
      });
      leader.set(
        reply,
        [...answer.headers].filter(([name]) => name === 'x-consul-knownleader' || name === 'x-consul-lastcontact'),
      );
      return reply.code(answer.status).send(payload);
    } finally {
      reply.raw.off('close', onClose);
    }
  });
}
