// An XdsStream over a fake call (no gRPC, no sockets), for tests that drive one
// stream request by request and read exactly what it wrote.
import { EventEmitter } from 'node:events';
import type { ServerDuplexStream } from '@grpc/grpc-js';
import pino from 'pino';
import { BodyCache } from '../../../../src/xds/transport/body-cache';
import { createXdsMetrics } from '../../../../src/xds/transport/metrics';
import { NO_INTERNING } from '../../../../src/xds/transport/name-sets';
import type { XdsResource } from '../../../../src/xds/transport/provider';
import { type StreamDeps, XdsStream } from '../../../../src/xds/transport/stream';
import { encodeRequest, serializeResponse, type XdsResponse } from '../../../../src/xds/transport/wire';
import type { TestProvider } from './fixtures';

type StreamInfo = ConstructorParameters<typeof XdsStream>[2];

/** Starts a stream on `call` (an emitter with write/end/writableEnded) served from `provider`. */
export function startFakeStream(
  call: EventEmitter,
  provider: TestProvider,
  variant: StreamInfo['variant'],
  transport: StreamInfo['transport'],
  options: { id?: number; deps?: Partial<StreamDeps> } = {},
): {
  stream: XdsStream;
  send: (request: Record<string, unknown>) => void;
  changed: (typeUrl: string, names: string[]) => void;
  put: (resource: XdsResource) => void;
  remove: (typeUrl: string, name: string) => void;
} {
  const deps: StreamDeps = {
    get: (url, n) => provider.get(url, n),
    resourceTtlMs: 0,
    logger: pino({ level: 'silent' }),
    metrics: createXdsMetrics(undefined, () => []),
    bodyCache: new BodyCache(),
    registry: { subscriptionChanged: () => undefined, names: NO_INTERNING, closed: () => undefined },
    ...options.deps,
  };
  const info = { id: options.id ?? 1, variant, transport, api: 'v3' } as const;
  const stream = new XdsStream(call as unknown as ServerDuplexStream<Buffer, XdsResponse>, deps, info);
  const message = variant === 'sotw' ? 'DiscoveryRequest' : 'DeltaDiscoveryRequest';
  const send = (request: Record<string, unknown>) => call.emit('data', encodeRequest('v3', message, request));
  // As the push pipeline does: report the changed names, then let the stream write.
  const changed = (typeUrl: string, names: string[]) => {
    stream.resourcesChanged(typeUrl, new Set(names), Date.now());
    stream.flush();
  };
  const put = (resource: XdsResource) => {
    provider.set(resource);
    return changed(resource.typeUrl, [resource.name]);
  };
  const remove = (typeUrl: string, name: string) => {
    provider.remove(typeUrl, name);
    return changed(typeUrl, [name]);
  };
  return { stream, send, changed, put, remove };
}

/** What grpc-js does with a written response: serialize it and copy the bytes into its own frame (here: a Buffer of our own). */
export function framed(m: XdsResponse): Buffer {
  return Buffer.from(serializeResponse(m));
}

/** A call that keeps every response written to it, framed as grpc-js would frame it. */
export function recordingCall(): { call: EventEmitter; written: Buffer[] } {
  const written: Buffer[] = [];
  const call = Object.assign(new EventEmitter(), {
    writableEnded: false,
    write: (m: XdsResponse) => {
      written.push(framed(m));
      return true;
    },
    end: () => undefined,
  });
  return { call, written };
}
