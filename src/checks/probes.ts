// One probe of an HTTP, TCP or gRPC check, connecting to the address the
// policy resolved. Results read as Consul's agent writes them: status and an
// output a person can act on.

import * as http from 'node:http';
import * as https from 'node:https';
import { connect } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import type { HealthStatus } from '../catalog/types';
import type { Target } from './targets';

export interface ProbeResult {
  status: Exclude<HealthStatus, 'maintenance'>;
  output: string;
}

export interface HttpOptions {
  method: string;
  headers: Record<string, string[]>;
  body: string;
  tlsSkipVerify: boolean;
  tlsServerName: string;
}

/** Consul keeps at most 4 KiB of a check's output. */
const OUTPUT_MAX = 4096;

function hostFor(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

export function probeHttp(
  target: Target,
  address: string,
  timeoutMs: number,
  options: HttpOptions,
): Promise<ProbeResult> {
  const url = target.url!;
  const name = `HTTP ${options.method} ${url.href}`;
  return new Promise((resolve) => {
    const transport = url.protocol === 'https:' ? https : http;
    const headers: Record<string, string[] | string> = {
      'User-Agent': 'Consul Health Check',
      Accept: 'text/plain, text/*, */*',
      ...options.headers,
    };
    const req = transport.request(
      url,
      {
        method: options.method,
        headers,
        timeout: timeoutMs,
        // Connect to the address the policy allowed, whatever the name resolves to now.
        lookup: (_host, opts, cb) => {
          const family = address.includes(':') ? 6 : 4;
          if ((opts as { all?: boolean }).all)
            (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
          else cb(null, address, family);
        },
        ...(url.protocol === 'https:'
          ? { rejectUnauthorized: !options.tlsSkipVerify, servername: options.tlsServerName || url.hostname }
          : {}),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (body.length < OUTPUT_MAX) body += chunk;
        });
        res.on('end', () => {
          const code = res.statusCode ?? 0;
          const output = `${name}: ${code} ${res.statusMessage ?? ''} Output: ${body.slice(0, OUTPUT_MAX)}`;
          // Consul: 2xx passing, 429 Too Many Requests warning, anything else critical.
          resolve({ status: code >= 200 && code < 300 ? 'passing' : code === 429 ? 'warning' : 'critical', output });
        });
        res.on('error', (err) => resolve({ status: 'critical', output: `${name}: ${err.message}` }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request timed out after ${timeoutMs} ms`)));
    req.on('error', (err) => resolve({ status: 'critical', output: `${name}: ${err.message}` }));
    req.end(options.body === '' ? undefined : options.body);
  });
}

export function probeTcp(target: Target, address: string, timeoutMs: number): Promise<ProbeResult> {
  const where = `${hostFor(address)}:${target.port}`;
  return new Promise((resolve) => {
    const socket = connect({ host: address, port: target.port });
    const done = (result: ProbeResult) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done({ status: 'critical', output: `dial tcp ${where}: i/o timeout` }));
    socket.once('connect', () => done({ status: 'passing', output: `TCP connect ${where}: Success` }));
    socket.once('error', (err) => done({ status: 'critical', output: `dial tcp ${where}: ${err.message}` }));
  });
}

// grpc.health.v1: HealthCheckRequest { string service = 1 }, HealthCheckResponse { ServingStatus status = 1 }.
// Two one-field messages, encoded by hand instead of loading a proto.
const SERVING_STATUS = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'];

function encodeRequest(service: string): Buffer {
  const name = Buffer.from(service, 'utf8');
  if (name.length === 0) return Buffer.alloc(0);
  const len: number[] = [];
  for (let n = name.length; ; n >>>= 7) {
    if (n < 0x80) {
      len.push(n);
      break;
    }
    len.push((n & 0x7f) | 0x80);
  }
  return Buffer.concat([Buffer.from([0x0a, ...len]), name]);
}

function decodeStatus(buf: Buffer): number {
  // Field 1, varint; absent means 0 (UNKNOWN).
  for (let i = 0; i < buf.length; ) {
    const tag = buf[i++]!;
    let value = 0;
    for (let shift = 0; i < buf.length; shift += 7) {
      const b = buf[i++]!;
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
    }
    if (tag === 0x08) return value;
  }
  return 0;
}

export function probeGrpc(target: Target, address: string, timeoutMs: number, check: string): Promise<ProbeResult> {
  const client = new grpc.Client(`${hostFor(address)}:${target.port}`, grpc.credentials.createInsecure());
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      '/grpc.health.v1.Health/Check',
      encodeRequest,
      decodeStatus,
      target.service ?? '',
      { deadline: Date.now() + timeoutMs },
      (err, status) => {
        client.close();
        if (err) resolve({ status: 'critical', output: `gRPC check ${check}: failed: ${err.message}` });
        else if (status === 1) resolve({ status: 'passing', output: `gRPC check ${check}: success` });
        else
          resolve({
            status: 'critical',
            output: `gRPC check ${check}: failed: serving status ${SERVING_STATUS[status ?? 0] ?? status}`,
          });
      },
    );
  });
}
