// Intentions as real Envoys enforce them (docs/mesh.md "Intentions on the
// wire"), with two sources: A through its sidecar, and E, a client holding
// E's leaf from the CA that opens mutual TLS to the public listeners itself.
// L4 on a TCP service D (the network RBAC filter in front of tcp_proxy) and L7
// on an HTTP service B: allow and deny, an exact source beating `*`, a `*`
// destination losing to an exact one, the default intention from the mesh
// entry; and an intention change reaching only the destination's sidecar
// (the other Envoys' LDS update counts do not move).

import assert from 'node:assert/strict';
import https from 'node:https';
import net from 'node:net';
import { after, before, test } from 'node:test';
import tls from 'node:tls';
import type Consul from 'consul';
import type { Hub } from '../../src/hub';
import { request, startBackend, untilServedBy } from '../envoy/harness';
import type { Envoy } from '../helpers/envoy';
import { freePort, registerApp, startMeshHub, startSidecar } from './harness';

let hub: Hub;
let consul: Consul;
const closers: (() => Promise<unknown>)[] = [];
let envoyA: Envoy;
let envoyB: Envoy;
let envoyD: Envoy;
let upB: number;
let upD: number;
let publicB: number;
let publicD: number;
let leafE: { key: string; cert: string };
let roots: string[];

async function hubCall(method: string, url: string, payload?: object) {
  const res = await hub.http.inject({ method: method as 'GET', url, ...(payload ? { payload } : {}) });
  assert.equal(res.statusCode, 200, `${method} ${url}: ${res.body}`);
  return res;
}

before(async () => {
  ({ hub, consul } = await startMeshHub());
  closers.push(
    async () => consul.destroy(),
    () => hub.close(),
  );
  const appB = await startBackend('b');
  // A TCP echo app; the mesh resets its connections when intentions refuse them.
  const appD = net.createServer((s) => s.on('error', () => s.destroy()).pipe(s));
  await new Promise<void>((r) => appD.listen(0, '127.0.0.1', r));
  closers.push(
    () => appB.close(),
    () => new Promise((r) => appD.close(r)),
  );
  await hubCall('PUT', '/v1/config', { Kind: 'service-defaults', Name: 'b', Protocol: 'http' });
  [upB, upD, publicB, publicD] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const proxyB = await registerApp(consul, { name: 'b', id: 'b1', port: appB.port, sidecarPort: publicB });
  const proxyD = await registerApp(consul, {
    name: 'd',
    id: 'd1',
    port: (appD.address() as net.AddressInfo).port,
    sidecarPort: publicD,
  });
  const proxyA = await registerApp(consul, {
    name: 'a',
    id: 'a1',
    port: await freePort(),
    sidecarPort: await freePort(),
    upstreams: [
      { destinationName: 'b', localBindPort: upB },
      { destinationName: 'd', localBindPort: upD },
    ],
  });
  [envoyA, envoyB, envoyD] = await Promise.all([
    startSidecar(hub, proxyA, 'a-sidecar-proxy'),
    startSidecar(hub, proxyB, 'b-sidecar-proxy'),
    startSidecar(hub, proxyD, 'd-sidecar-proxy'),
  ]);
  closers.push(
    () => envoyA.stop(),
    () => envoyB.stop(),
    () => envoyD.stop(),
  );
  const leaf = (await hubCall('GET', '/v1/agent/connect/ca/leaf/e')).json();
  leafE = { key: leaf.PrivateKeyPEM, cert: leaf.CertPEM };
  roots = (await hubCall('GET', '/v1/connect/ca/roots')).json().Roots.map((r: { RootCert: string }) => r.RootCert);
  await untilServedBy(envoyA, upB, 'b', { capMs: 30_000 });
});
after(async () => {
  for (const c of closers.reverse()) await c().catch(() => undefined);
});

/** Bytes through a TCP connection: 'echo' when the app echoed them, 'refused' when the connection closed first. */
function echo(socket: net.Socket): Promise<'echo' | 'refused'> {
  return new Promise((resolve) => {
    let got = '';
    socket.on('data', (d) => {
      got += d.toString();
      if (got === 'ping') {
        resolve('echo');
        socket.destroy();
      }
    });
    socket.on('error', () => resolve('refused'));
    socket.on('close', () => resolve('refused'));
    socket.setTimeout(5_000, () => socket.destroy()); // a hang guard only
  });
}

/** A → A's sidecar → D (TCP). */
function tcpFromA(): Promise<string> {
  const socket = net.connect({ host: '127.0.0.1', port: upD }, () => socket.write('ping'));
  return echo(socket);
}

/** E → D's public listener, mutual TLS with E's leaf. */
function tcpFromE(): Promise<string> {
  const socket = tls.connect(
    { host: '127.0.0.1', port: publicD, ...leafE, ca: roots, checkServerIdentity: () => undefined },
    () => socket.write('ping'),
  );
  return echo(socket);
}

/** E → B's public listener over mutual TLS: the status, or 0 when the connection was closed. */
function httpFromE(path: string, method = 'GET', headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: publicB,
        path,
        method,
        headers,
        agent: false,
        ...leafE,
        ca: roots,
        checkServerIdentity: () => undefined,
        timeout: 5_000,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

/** A → A's sidecar → B: the status; 0 when B's sidecar closed the connection (A's Envoy answers that with a 503). */
async function httpFromA(path: string, method = 'GET'): Promise<number> {
  const status = (await request(upB, path, { method, timeoutMs: 5_000 }).catch(() => ({ status: 0 }))).status;
  return status === 503 ? 0 : status;
}

/** Waits until every probe answers what it expects (Envoy applies a change on new connections). */
async function until(
  envoy: Envoy,
  what: string,
  expected: Record<string, [() => Promise<unknown>, unknown]>,
): Promise<void> {
  let seen: Record<string, unknown> = {};
  await envoy.until(
    async () => {
      seen = {};
      for (const [name, [probe]] of Object.entries(expected)) seen[name] = await probe();
      return Object.entries(expected).every(([name, [, want]]) => seen[name] === want);
    },
    () => `${what}: ${JSON.stringify(seen)}`,
  );
}

const intention = (source: string, destination: string, body: object) =>
  hubCall('PUT', `/v1/connect/intentions/exact?source=${source}&destination=${destination}`, body);
const drop = (source: string, destination: string) =>
  hubCall('DELETE', `/v1/connect/intentions/exact?source=${source}&destination=${destination}`);
const meshDefault = (policy: 'allow' | 'deny') =>
  hubCall('PUT', '/v1/config', { Kind: 'mesh', DefaultIntentionPolicy: policy });

test('L4 on a TCP service: a → d deny refuses A only; * → d deny refuses both sources; a → d allow (exact) beats it for A only; * → d beats * → *; the mesh default applies without intentions', async () => {
  await until(envoyD, 'default allow', { a: [tcpFromA, 'echo'], e: [tcpFromE, 'echo'] });
  await intention('a', 'd', { Action: 'deny' });
  await until(envoyD, 'a → d deny refuses A only', { a: [tcpFromA, 'refused'], e: [tcpFromE, 'echo'] });
  await intention('*', 'd', { Action: 'deny' });
  await until(envoyD, '* → d deny', { a: [tcpFromA, 'refused'], e: [tcpFromE, 'refused'] });
  await intention('a', 'd', { Action: 'allow' });
  await until(envoyD, 'a → d allow beats * → d deny', { a: [tcpFromA, 'echo'], e: [tcpFromE, 'refused'] });
  await drop('a', 'd');
  await drop('*', 'd');
  await intention('*', '*', { Action: 'deny' });
  await intention('*', 'd', { Action: 'allow' });
  await until(envoyD, '* → d allow (8) beats * → * deny (5)', { a: [tcpFromA, 'echo'], e: [tcpFromE, 'echo'] });
  await until(envoyB, '* → * deny holds for b', { a: [() => httpFromA('/'), 0], e: [() => httpFromE('/'), 0] });
  await drop('*', 'd');
  await drop('*', '*');
  await meshDefault('deny');
  await until(envoyD, 'no intention: the mesh default (deny)', { a: [tcpFromA, 'refused'], e: [tcpFromE, 'refused'] });
  await meshDefault('allow');
  await until(envoyD, 'the mesh default back to allow', { a: [tcpFromA, 'echo'], e: [tcpFromE, 'echo'] });
});

test('L7 on an HTTP service: * → b permissions (a header denies first, GET /public and a path regex allowed, /admin denied) decide E’s requests; a → b allow (exact) admits all of A’s; the default decides what no permission matches', async () => {
  await intention('*', 'b', {
    Permissions: [
      { Action: 'deny', HTTP: { Header: [{ Name: 'x-block', Present: true }] } },
      { Action: 'allow', HTTP: { PathPrefix: '/public', Methods: ['GET'] } },
      { Action: 'allow', HTTP: { PathRegex: '/v[0-9]+/items' } },
      { Action: 'deny', HTTP: { PathPrefix: '/admin' } },
    ],
  });
  await intention('a', 'b', { Action: 'allow' });
  await until(envoyB, 'L7 for E, L4 allow for A', {
    ePublic: [() => httpFromE('/public/x'), 200],
    eAdmin: [() => httpFromE('/admin/x'), 403],
    ePost: [() => httpFromE('/public/x', 'POST'), 200],
    eBlocked: [() => httpFromE('/public/x', 'GET', { 'x-block': '1' }), 403],
    aAdmin: [() => httpFromA('/admin/x'), 200],
  });
  await meshDefault('deny');
  await until(envoyB, 'default deny: what no permission matches is refused', {
    ePublic: [() => httpFromE('/public/x'), 200],
    ePost: [() => httpFromE('/public/x', 'POST'), 403],
    eRegex: [() => httpFromE('/v2/items'), 200],
    eNoMatch: [() => httpFromE('/vx/items'), 403],
    aAdmin: [() => httpFromA('/admin/x'), 200],
  });
  await meshDefault('allow');
  await drop('a', 'b');
  await until(envoyB, 'without a → b, A falls under * → b', {
    aPublic: [() => httpFromA('/public/x'), 200],
    aAdmin: [() => httpFromA('/admin/x'), 403],
  });
  await drop('*', 'b');
  await until(envoyB, 'no intentions: default allow', {
    aAdmin: [() => httpFromA('/admin/x'), 200],
    eAdmin: [() => httpFromE('/admin/x'), 200],
  });
});

test('an intention change reaches only its destination’s sidecar: the other Envoys get no listener update', async () => {
  const lds = async (envoy: Envoy) => (await envoy.stats()).get('listener_manager.lds.update_success') ?? 0;
  /** Resolves once the Envoy's public listener names E (its RBAC changed for E). */
  const namesE = (envoy: Envoy) =>
    envoy.until(
      async () => JSON.stringify(await envoy.configDump('?resource=dynamic_listeners')).includes('/svc/e'),
      `${envoy.id} has a rule for e`,
    );
  const [a0, b0, d0] = [await lds(envoyA), await lds(envoyB), await lds(envoyD)];
  await intention('e', 'd', { Action: 'deny' });
  await namesE(envoyD);
  await until(envoyD, 'E refused by d', { e: [tcpFromE, 'refused'], a: [tcpFromA, 'echo'] });
  // A barrier per other Envoy: a change of its own. Had the d change reached it too, it would have come first (one stream, in order).
  await intention('e', 'a', { Action: 'deny' });
  await intention('e', 'b', { Action: 'deny' });
  await Promise.all([namesE(envoyA), namesE(envoyB)]);
  assert.deepEqual(
    [(await lds(envoyA)) - a0, (await lds(envoyB)) - b0, (await lds(envoyD)) - d0],
    [1, 1, 1],
    'one listener update each: A and B only for their own change, D only for its own',
  );
  for (const [s, d] of [
    ['e', 'd'],
    ['e', 'a'],
    ['e', 'b'],
  ])
    await drop(s!, d!);
  assert.equal(
    (await envoyA.rejectedUpdates()).total +
      (await envoyB.rejectedUpdates()).total +
      (await envoyD.rejectedUpdates()).total,
    0,
    'no update was rejected',
  );
});
