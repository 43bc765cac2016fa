// The gRPC face of the publisher: /subscribe.StateChangeSubscription/Subscribe.
// Each stream turns the wire request into a publisher subscription and writes
// pre-encoded Event bytes (shared by every subscriber of the item), pausing on
// backpressure until 'drain'. Status codes: INVALID_ARGUMENT for a bad request,
// ABORTED when the client must reset (restore), UNAVAILABLE on shutdown (the
// client keeps its view and resumes elsewhere), RESOURCE_EXHAUSTED for a
// subscriber that fell too far behind.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { Authorizer } from '../acl/authorizer';
import { configEntryRight } from '../acl/catalog-rules';
import { permissionDenied } from '../acl/deny';
import type { AclResolver } from '../acl/resolver';
import { CONFIG_TOPIC_BY_KIND, type ConfigEntryKind, Topic } from '../catalog/types';
import type { Limits } from '../config';
import { grpcStatusOf, HubError, invalid, isHubError } from '../errors';
import type { SubscribeRequest__Output } from '../gen/subscribe/subscribe/SubscribeRequest';
import { moduleLogger } from '../logger';
import { admitStream, createStreamCounter, refusalLog, type StreamCounter } from '../stream-limits';
import { loadSubscribeProto } from './proto';
import type { Publisher, Subject, SubscribeRequest } from './types';
import { createEventEncoder, type EventEncoder } from './wire';

export interface SubscribeServiceOptions {
  publisher: Publisher;
  logger: Logger;
  /** This hub's datacenter; a request naming another one is refused (no forwarding). */
  datacenter?: string;
  /** Shared encoder; one is made per service when absent. */
  encoder?: EventEncoder;
  /** ACLs: each stream's token is resolved once; absent = no checks (tests of the wire alone). */
  acl?: AclResolver;
  /** Stream limits (docs/security.md); absent = none. */
  limits?: Pick<Limits, 'subscribeMaxStreamsPerToken'>;
  /** The gRPC server's per-connection stream counter, shared with xDS. */
  connections?: StreamCounter;
}

/** The request bytes were not a SubscribeRequest (truncated, garbage): why. */
class UndecodableRequest {
  constructor(readonly reason: string) {}
}

export function addSubscribeService(server: grpc.Server, options: SubscribeServiceOptions): void {
  const proto = loadSubscribeProto();
  const method = proto.service.Subscribe as grpc.MethodDefinition<SubscribeRequest__Output, Buffer>;
  const encoder = options.encoder ?? createEventEncoder(proto);
  const logger = moduleLogger(options.logger, 'subscribe-grpc');
  const perToken = options.limits
    ? createStreamCounter(
        options.limits.subscribeMaxStreamsPerToken,
        (n) => `too many Subscribe streams for this token: at most ${n} (--subscribe-max-streams-per-token)`,
      )
    : undefined;
  let streamIds = 0;
  // Events are written pre-encoded: the serializer passes the shared bytes through.
  // A request that does not decode reaches the handler as UndecodableRequest:
  // grpc-js would answer a throwing deserializer with INTERNAL, but bad bytes
  // are the client's error (INVALID_ARGUMENT).
  const definition: grpc.ServiceDefinition = {
    Subscribe: {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        try {
          return method.requestDeserialize(bytes);
        } catch (err) {
          return new UndecodableRequest(err instanceof Error ? err.message : String(err));
        }
      },
      responseSerialize: (value: Buffer) => value,
    },
  };
  const refused = refusalLog(logger, 'refusing Subscribe streams past --grpc-max-streams-per-connection');
  server.addService(definition, {
    Subscribe: (call: grpc.ServerWritableStream<SubscribeRequest__Output, Buffer>) => {
      // First, before any per-stream work: a flood on one connection is refused for next to nothing.
      const release = admitStream(options.connections, call, refused);
      if (!release) return;
      const log = logger.child({ stream: ++streamIds });
      serveStream(call, options, encoder, log, perToken, release).catch((err: unknown) => {
        log.error({ err }, 'subscribe stream failed');
        fail(call, new HubError('INTERNAL', 'internal error', { cause: err }));
      });
    },
  });
}

async function serveStream(
  call: grpc.ServerWritableStream<SubscribeRequest__Output, Buffer>,
  options: SubscribeServiceOptions,
  encoder: EventEncoder,
  log: Logger,
  perToken: StreamCounter | undefined,
  releaseConnection: () => void,
): Promise<void> {
  const ac = new AbortController();
  let wake: (() => void) | undefined;
  const wakeWriter = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const onCancel = (): void => {
    ac.abort();
    wakeWriter();
  };
  call.on('cancelled', onCancel);
  call.on('drain', wakeWriter);
  let endedBy: HubError | undefined;
  const releases: Array<() => void> = [releaseConnection];
  try {
    const raw: SubscribeRequest__Output | UndecodableRequest = call.request;
    if (raw instanceof UndecodableRequest) throw invalid('request', `not a SubscribeRequest message: ${raw.reason}`);
    const request = fromWire(raw, options.datacenter);
    releases.push(perToken?.enter(request.token) ?? (() => {}));
    if (options.acl?.settings.enabled)
      request.authorizer = authorizeSubscribe(options.acl.resolve(request.token), request);
    const subscription = options.publisher.subscribe(request, ac.signal);
    // Response headers go out as soon as the subscription exists, so a client
    // can tell that every write acknowledged from now on will reach it.
    call.sendMetadata(new grpc.Metadata());
    // One listener for the stream's life (not one per drain wait).
    subscription.closed?.then((err) => {
      endedBy = err;
      wakeWriter();
    });
    for await (const item of subscription) {
      if (ac.signal.aborted) break;
      if (!call.write(encoder.encode(item))) {
        await new Promise<void>((resolve) => (wake = resolve));
        if (ac.signal.aborted || endedBy !== undefined) break;
      }
    }
    if (endedBy !== undefined) throw endedBy;
    if (!ac.signal.aborted) call.end();
  } catch (err) {
    if (!isHubError(err)) throw err;
    if (err.code === 'SLOW_CONSUMER' || err.code === 'SUBSCRIPTION_RESET')
      log.info({ code: err.code }, 'ending subscribe stream');
    fail(call, err);
  } finally {
    for (const release of releases) release();
    ac.abort();
    call.off('cancelled', onCancel);
    call.off('drain', wakeWriter);
  }
}

const CONFIG_KIND_BY_TOPIC = new Map(
  Object.entries(CONFIG_TOPIC_BY_KIND).map(([kind, topic]) => [topic, kind as ConfigEntryKind]),
);

/**
 * A named subject the token may not read at all is refused with
 * PERMISSION_DENIED (an empty stream would look like "no instances": the
 * empty-success Consul returned in issue 20790). Wildcard subjects are filtered
 * per event instead.
 */
function authorizeSubscribe(authz: Authorizer, request: SubscribeRequest): Authorizer {
  if (request.subject.wildcard || authz.allowsAll) return authz;
  const key = request.subject.key;
  if (request.topic === Topic.ServiceHealth || request.topic === Topic.ServiceHealthConnect) {
    if (!authz.allowed('service', 'read', key)) throw permissionDenied(authz, 'service', 'read', key);
    return authz;
  }
  const kind = CONFIG_KIND_BY_TOPIC.get(request.topic);
  const right = kind === undefined ? undefined : configEntryRight(kind, key, 'read');
  if (right && !authz.allowed(right.resource, 'read', right.name))
    throw permissionDenied(authz, right.resource, 'read', right.name);
  return authz;
}

function fail(call: grpc.ServerWritableStream<SubscribeRequest__Output, Buffer>, err: HubError): void {
  if (call.cancelled) return;
  call.emit('error', grpcStatusOf(err));
}

/** proto Topic enum (names as strings, numbers when unknown) → the catalog's Topic number. */
function topicOf(value: unknown): Topic {
  if (typeof value === 'number') return value as Topic;
  const n = loadSubscribeProto().root.lookupEnum('subscribe.Topic').values[String(value)];
  return (n ?? -1) as Topic;
}

/**
 * Wire request → publisher request. NamedSubject wins; without it the
 * deprecated top-level Key/Namespace/Partition/PeerName are used (Consul's
 * fallback), so clients from before NamedSubject keep working.
 */
export function fromWire(req: SubscribeRequest__Output, datacenter?: string): SubscribeRequest {
  if (req.Datacenter !== '' && req.Datacenter !== datacenter) {
    throw invalid(
      'Datacenter',
      `forwarding to datacenter "${req.Datacenter}" is not supported; use "" for the local one`,
    );
  }
  let subject: Subject;
  if (req.Subject === 'WildcardSubject' && req.WildcardSubject === true) subject = { wildcard: true };
  else if (req.Subject === 'NamedSubject' && req.NamedSubject) {
    const n = req.NamedSubject;
    subject = { key: n.Key, namespace: n.Namespace, partition: n.Partition, peerName: n.PeerName };
  } else subject = { key: req.Key, namespace: req.Namespace, partition: req.Partition, peerName: req.PeerName };
  let index: bigint;
  try {
    index = BigInt(req.Index || '0');
  } catch {
    throw invalid('Index', 'must be an unsigned integer');
  }
  return { topic: topicOf(req.Topic), subject, token: req.Token, index };
}
