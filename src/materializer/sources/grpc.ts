// The gRPC source: a client of any server speaking Consul's
// /subscribe.StateChangeSubscription/Subscribe (this hub's or another's). One
// channel per source, shared by every materializer on it; each subscription is
// one server stream, cancelled with its signal. Status codes become the
// materializer's HubError codes:
//   ABORTED → SUBSCRIPTION_RESET (reset, resubscribe from 0)
//   PERMISSION_DENIED, INVALID_ARGUMENT, UNKNOWN "ACL not found" → terminal
//   UNAVAILABLE → SHUTTING_DOWN, RESOURCE_EXHAUSTED → SLOW_CONSUMER, others → INTERNAL (resume)
import * as grpc from '@grpc/grpc-js';
import { HubError } from '../../errors';
import type { Event__Output } from '../../gen/subscribe/subscribe/Event';
import { loadSubscribeProto, SUBSCRIBE_METHOD_PATH } from '../../subscribe/proto';
import type { StreamItem, SubscribeRequest } from '../../subscribe/types';
import { createWireDecoder } from '../from-wire';
import type { Source } from '../source';

export interface GrpcSourceOptions {
  /** host:port of the Subscribe server. */
  address: string;
  credentials?: grpc.ChannelCredentials;
  /** The datacenter to ask for ("" = the server's own). */
  datacenter?: string;
  channelOptions?: grpc.ChannelOptions;
}

export function statusToHubError(err: Partial<grpc.ServiceError>): HubError {
  const details = err.details ?? err.message ?? 'subscribe failed';
  const options = { cause: err };
  switch (err.code) {
    case grpc.status.ABORTED:
      return new HubError('SUBSCRIPTION_RESET', details, options);
    case grpc.status.PERMISSION_DENIED:
      return new HubError('PERMISSION_DENIED', details, options);
    case grpc.status.INVALID_ARGUMENT:
      return new HubError('INVALID_ARGUMENT', details, options);
    case grpc.status.UNAVAILABLE:
      return new HubError('SHUTTING_DOWN', details, options);
    case grpc.status.RESOURCE_EXHAUSTED:
      return new HubError('SLOW_CONSUMER', details, options);
    case grpc.status.UNKNOWN:
      // Consul returns token errors raw, so they arrive as UNKNOWN "ACL not found".
      if (/acl not found|permission denied/i.test(details)) return new HubError('PERMISSION_DENIED', details, options);
      return new HubError('INTERNAL', details, options);
    default:
      return new HubError('INTERNAL', details, options);
  }
}

function wireRequest(request: SubscribeRequest, datacenter: string): Record<string, unknown> {
  const base = { Topic: request.topic, Token: request.token, Index: String(request.index), Datacenter: datacenter };
  const s = request.subject;
  if (s.wildcard) return { ...base, WildcardSubject: true };
  return {
    ...base,
    NamedSubject: {
      Key: s.key,
      Namespace: s.namespace ?? '',
      Partition: s.partition ?? '',
      PeerName: s.peerName ?? '',
    },
  };
}

export function grpcSource(options: GrpcSourceOptions): Source {
  const proto = loadSubscribeProto();
  const method = proto.service.Subscribe as grpc.MethodDefinition<object, Event__Output>;
  const decoder = createWireDecoder(proto);
  let client: grpc.Client | undefined;
  let closed = false;

  function channel(): grpc.Client {
    if (closed) throw new HubError('SHUTTING_DOWN', 'gRPC source is closed');
    client ??= new grpc.Client(
      options.address,
      options.credentials ?? grpc.credentials.createInsecure(),
      options.channelOptions,
    );
    return client;
  }

  return {
    subscribe(request: SubscribeRequest, signal: AbortSignal): AsyncIterable<StreamItem> {
      return {
        async *[Symbol.asyncIterator]() {
          if (signal.aborted) return;
          const call = channel().makeServerStreamRequest<object, Event__Output>(
            SUBSCRIBE_METHOD_PATH,
            method.requestSerialize,
            method.responseDeserialize,
            wireRequest(request, options.datacenter ?? ''),
          );
          const cancel = () => call.cancel();
          signal.addEventListener('abort', cancel, { once: true });
          const key = request.subject.wildcard ? undefined : request.subject.key;
          try {
            for await (const event of call as AsyncIterable<Event__Output>) {
              yield decoder.item(event, request.topic, key);
            }
          } catch (err) {
            if (signal.aborted) return;
            if (err instanceof HubError) throw err;
            throw statusToHubError(err as grpc.ServiceError);
          } finally {
            signal.removeEventListener('abort', cancel);
            call.cancel();
          }
        },
      };
    },
    close() {
      closed = true;
      client?.close();
      client = undefined;
    },
  };
}
