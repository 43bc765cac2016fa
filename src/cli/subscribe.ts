// `xdshub subscribe`: streams a topic from a hub's (or Consul server's)
// Subscribe API and prints one line per Event. It keeps the index it has seen
// and, when the stream breaks, reconnects with backoff and resumes from it, as
// Consul's materializer does: ABORTED resets to index 0, NewSnapshotToFollow
// means the index is 0 until the next EndOfSnapshot. Ctrl-C exits 0.
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { createBackoff } from '../materializer/backoff';
import { formatPretty } from '../subscribe/format';
import { loadSubscribeProto, SUBSCRIBE_METHOD_PATH, type SubscribeProto } from '../subscribe/proto';

const USAGE = `usage: xdshub subscribe --topic ServiceHealth (--key web | --wildcard) [--index N]
                        [--addr 127.0.0.1:8502] [--token T] [--namespace NS] [--partition P]
                        [--format json|pretty]

  Prints one JSON line per Event (--format pretty for people); reconnects with
  backoff and resumes by index; Ctrl-C exits. Env: XDSHUB_GRPC_ADDR, XDSHUB_TOKEN.`;

interface Options {
  topic: string | number;
  key: string;
  wildcard: boolean;
  index: bigint;
  addr: string;
  token: string;
  namespace: string;
  partition: string;
  format: 'json' | 'pretty';
}

class UsageError extends Error {}

function parse(argv: string[], env: Record<string, string | undefined>): Options | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      topic: { type: 'string' },
      key: { type: 'string' },
      wildcard: { type: 'boolean' },
      index: { type: 'string' },
      addr: { type: 'string' },
      token: { type: 'string' },
      namespace: { type: 'string' },
      partition: { type: 'string' },
      format: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  if (values.topic === undefined) throw new UsageError('--topic is required');
  const topic = /^\d+$/.test(values.topic) ? Number(values.topic) : values.topic;
  if (
    typeof topic === 'string' &&
    loadSubscribeProto().root.lookupEnum('subscribe.Topic').values[topic] === undefined
  ) {
    throw new UsageError(`--topic: unknown topic "${topic}"`);
  }
  const wildcard = values.wildcard === true;
  if (!wildcard && (values.key === undefined || values.key === ''))
    throw new UsageError('--key is required (or --wildcard)');
  if (wildcard && values.key !== undefined) throw new UsageError('--key and --wildcard are exclusive');
  const indexText = values.index ?? '0';
  if (!/^\d+$/.test(indexText)) throw new UsageError('--index: must be an unsigned integer');
  const format = values.format ?? 'json';
  if (format !== 'json' && format !== 'pretty') throw new UsageError('--format: json or pretty');
  return {
    topic,
    key: values.key ?? '',
    wildcard,
    index: BigInt(indexText),
    addr: values.addr ?? env.XDSHUB_GRPC_ADDR ?? '127.0.0.1:8502',
    token: values.token ?? env.XDSHUB_TOKEN ?? '',
    namespace: values.namespace ?? '',
    partition: values.partition ?? '',
    format,
  };
}

/** Codes after which retrying the same request cannot help. */
const PERMANENT = new Set([
  grpc.status.INVALID_ARGUMENT,
  grpc.status.UNIMPLEMENTED,
  grpc.status.PERMISSION_DENIED,
  grpc.status.UNAUTHENTICATED,
]);

export async function run(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  let opts: Options | 'help';
  try {
    opts = parse(argv, env);
  } catch (err) {
    process.stderr.write(`xdshub subscribe: ${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
    return 2;
  }
  if (opts === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const options = opts;
  const proto = loadSubscribeProto();
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const client = new grpc.Client(options.addr, grpc.credentials.createInsecure(), {
    'grpc.initial_reconnect_backoff_ms': 200,
    'grpc.max_reconnect_backoff_ms': 5_000,
  });
  const note = (text: string): void => void process.stderr.write(`xdshub subscribe: ${text}\n`);
  // The index only moves at EndOfSnapshot and on live events: a stream cut
  // mid-snapshot must not resume as if the client held the whole snapshot.
  let index = options.index;
  let inSnapshot = index === 0n;
  // The materializer's backoff (0, then 200 ms doubling, with jitter), capped at 5 s for a person watching.
  const backoff = createBackoff({ maxMs: 5_000 });
  try {
    while (!stop.signal.aborted) {
      const st = await streamOnce(client, proto, options, index, stop.signal, {
        subscribed: () =>
          note(`subscribed to ${options.topic}/${options.wildcard ? '*' : options.key} at index ${index}`),
        event: (event) => {
          backoff.reset();
          if (event.NewSnapshotToFollow === true) {
            index = 0n; // the view is being replaced
            inSnapshot = true;
          } else if (event.EndOfSnapshot === true) {
            index = BigInt(String(event.Index ?? '0'));
            inSnapshot = false;
          } else if (!inSnapshot) index = BigInt(String(event.Index ?? index));
          process.stdout.write(options.format === 'pretty' ? formatPretty(event) : `${JSON.stringify(event)}\n`);
        },
      });
      if (stop.signal.aborted) break;
      if (PERMANENT.has(st.code)) {
        note(`${grpc.status[st.code]}: ${st.details}`);
        return 1;
      }
      if (st.code === grpc.status.ABORTED) {
        index = 0n; // server state replaced: start from a snapshot
        inSnapshot = true;
      }
      const wait = backoff.next();
      note(`stream ended (${grpc.status[st.code]}: ${st.details}); resubscribing at index ${index} in ${wait} ms`);
      await sleep(wait, undefined, { signal: stop.signal }).catch(() => undefined);
    }
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    client.close();
  }
}

interface Handlers {
  subscribed(): void;
  event(event: Record<string, unknown>): void;
}

function streamOnce(
  client: grpc.Client,
  proto: SubscribeProto,
  options: Options,
  index: bigint,
  signal: AbortSignal,
  on: Handlers,
): Promise<grpc.StatusObject> {
  const request = {
    Topic: options.topic,
    Token: options.token,
    Index: String(index),
    ...(options.wildcard
      ? { WildcardSubject: true }
      : { NamedSubject: { Key: options.key, Namespace: options.namespace, Partition: options.partition } }),
  };
  const { SubscribeRequest, Event } = proto;
  const call = client.makeServerStreamRequest(
    SUBSCRIBE_METHOD_PATH,
    (req: object) => Buffer.from(SubscribeRequest.encode(SubscribeRequest.fromObject(req)).finish()),
    // Printed as Consul's JSON would show it: PascalCase, uint64 as strings, enum names, defaults left out.
    (bytes: Buffer) => Event.toObject(Event.decode(bytes), { longs: String, enums: String }) as Record<string, unknown>,
    request,
  );
  return new Promise((resolve) => {
    const onAbort = (): void => call.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    call.on('metadata', () => on.subscribed());
    call.on('data', (event: Record<string, unknown>) => on.event(event));
    call.on('error', () => undefined); // the status below carries the outcome
    call.on('status', (st: grpc.StatusObject) => {
      signal.removeEventListener('abort', onAbort);
      resolve(st);
    });
  });
}
