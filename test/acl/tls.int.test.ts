// TLS on both ports with certificates made at test time: a rotated certificate
// is served to new connections while open ones (an HTTP keep-alive connection,
// a Subscribe stream) carry on; mutual TLS refuses clients without a
// certificate from the CA, and --tls-client-cert-token makes a certificate's CN
// act as the token with that AccessorID when it is allowed and not management.

import assert from 'node:assert/strict';
import type { X509Certificate } from 'node:crypto';
import { Agent, request } from 'node:https';
import { test } from 'node:test';
import { connect } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { accessorForInitialToken, sha256Hex } from '../../src/acl/secrets';
import { loadSubscribeProto } from '../../src/subscribe/proto';
import { makeCa, type Pem, writePair } from '../helpers/certs';
import { tmpDir } from '../helpers/tmp';
import { until as poll } from '../helpers/until';
import { describe, StreamReader, type SubscribeClient } from '../subscribe/grpc-helpers';
import { aclHub, as, ROOT, registerBody, tokenWith } from './helpers';

interface Got {
  status: number;
  body: string;
  serial: string;
  reused: boolean;
}

function get(
  port: number,
  path: string,
  opts: { ca: string; agent?: Agent; cert?: Pem; headers?: Record<string, string> },
): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        ca: opts.ca,
        agent: opts.agent ?? false,
        headers: opts.headers,
        ...(opts.cert ? { cert: opts.cert.cert, key: opts.cert.key } : {}),
      },
      (res) => {
        const peer = (
          res.socket as unknown as { getPeerX509Certificate(): X509Certificate | undefined }
        ).getPeerX509Certificate();
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body, serial: peer?.serialNumber ?? '', reused: req.reusedSocket });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The certificate a fresh TLS connection to `port` is served (h2, as gRPC clients ask). */
function servedSerial(port: number, ca: string, cert?: Pem): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(
      {
        host: '127.0.0.1',
        port,
        ca,
        ALPNProtocols: ['h2'],
        servername: 'localhost',
        ...(cert ? { cert: cert.cert, key: cert.key } : {}),
      },
      () => {
        const serial = socket.getPeerX509Certificate()?.serialNumber ?? '';
        socket.destroy();
        resolve(serial);
      },
    );
    socket.on('error', reject);
  });
}

/** Polls until `check` holds; a connection refused mid-rotation counts as "not yet" and is named if it is the last word. */
async function until(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  await poll(check, { what, timeout: ms, interval: 50, retryErrors: true });
}

function tlsSubscribeClient(port: number, ca: string, cert?: Pem): SubscribeClient {
  const Ctor = grpc.makeGenericClientConstructor(loadSubscribeProto().service, 'StateChangeSubscription');
  const creds = grpc.credentials.createSsl(
    Buffer.from(ca),
    cert ? Buffer.from(cert.key) : null,
    cert ? Buffer.from(cert.cert) : null,
  );
  return new Ctor(`127.0.0.1:${port}`, creds) as unknown as SubscribeClient;
}

test('TLS on HTTP and gRPC; a rotated certificate reaches new connections and open ones keep going', async () => {
  const dir = await tmpDir('tls');
  const ca = await makeCa(dir.path);
  const first = await ca.issue('hub', 'server');
  const files = await writePair(dir.path, first);
  const hub = await aclHub({ tlsCert: files.cert, tlsKey: files.key, tlsReloadIntervalMs: 50 });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const client = tlsSubscribeClient(hub.grpcPort, ca.cert);
  try {
    assert.match(hub.httpUrl, /^https:/);
    const a = await get(hub.httpPort, '/v1/status/leader', { ca: ca.cert, agent });
    assert.equal(a.status, 200);
    assert.equal(a.serial, first.serial);
    assert.equal(await servedSerial(hub.grpcPort, ca.cert), first.serial);
    await as(hub, ROOT, 'PUT', '/v1/catalog/register', registerBody('n1', 'web'));
    const stream = new StreamReader(
      client.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' }, Token: ROOT }),
    );
    await stream.take(2);

    const second = await ca.issue('hub', 'server');
    await writePair(dir.path, second);
    await until(
      'HTTP to serve the new certificate',
      async () => (await get(hub.httpPort, '/v1/status/leader', { ca: ca.cert })).serial === second.serial,
    );
    await until(
      'gRPC to serve the new certificate',
      async () => (await servedSerial(hub.grpcPort, ca.cert)) === second.serial,
    );

    // The keep-alive connection opened before the rotation still answers, on the same socket and certificate.
    const b = await get(hub.httpPort, '/v1/status/leader', { ca: ca.cert, agent });
    assert.equal(b.status, 200);
    assert.equal(b.reused, true, 'same socket as before the rotation');
    // The Subscribe stream opened before the rotation still receives changes.
    const live = await as(hub, ROOT, 'PUT', '/v1/catalog/register', registerBody('n2', 'web'));
    assert.equal(describe(await stream.next()), `${live.index}:register-web`);
    stream.call.cancel();
  } finally {
    agent.destroy();
    client.close();
    await hub.close();
    await dir.cleanup();
  }
});

const NARROW = 'aaaaaaaa-0000-4000-8000-000000000001';
const MANAGER = 'aaaaaaaa-0000-4000-8000-000000000002';
const ACL_WRITER = 'aaaaaaaa-0000-4000-8000-000000000003';
const UNLISTED_MANAGER = 'aaaaaaaa-0000-4000-8000-000000000004';
const GONE = 'aaaaaaaa-0000-4000-8000-000000000005';
const INITIAL = accessorForInitialToken(sha256Hex(ROOT));

test('mutual TLS: no client certificate, no connection; only an allowed, non-management AccessorID CN acts as its token', async () => {
  const dir = await tmpDir('mtls');
  const ca = await makeCa(dir.path);
  const files = await writePair(dir.path, await ca.issue('hub', 'server'));
  const allow = [NARROW, MANAGER, ACL_WRITER, INITIAL, GONE];
  const hub = await aclHub({
    tlsCert: files.cert,
    tlsKey: files.key,
    tlsCa: `${dir.path}/ca.pem`,
    tlsClientCertToken: true,
    tlsClientCertTokenAllow: allow,
  });
  const clients: grpc.Client[] = [];
  try {
    await assert.rejects(get(hub.httpPort, '/v1/status/leader', { ca: ca.cert }));
    const bare = tlsSubscribeClient(hub.grpcPort, ca.cert);
    clients.push(bare);
    const noCert = await new StreamReader(
      bare.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' }, Token: ROOT }),
    ).status;
    assert.equal(noCert.code, grpc.status.UNAVAILABLE);

    await as(hub, ROOT, 'PUT', '/v1/catalog/register', registerBody('n1', 'web'));
    await as(hub, ROOT, 'PUT', '/v1/catalog/register', registerBody('n1', 'db'));
    const narrow = await tokenWith(hub, 'service "web" { policy = "read" }\nnode_prefix "" { policy = "read" }', {
      AccessorID: NARROW,
    });
    const manager = await as(hub, ROOT, 'PUT', '/v1/acl/token', {
      AccessorID: MANAGER,
      Policies: [{ Name: 'global-management' }],
    });
    assert.equal(manager.status, 200, manager.text);
    await tokenWith(hub, 'acl = "write"', { AccessorID: ACL_WRITER });
    const unlisted = await as(hub, ROOT, 'PUT', '/v1/acl/token', {
      AccessorID: UNLISTED_MANAGER,
      Policies: [{ Name: 'global-management' }],
    });
    assert.equal(unlisted.status, 200, unlisted.text);

    const cert = async (cn: string) => ca.issue(cn, 'client');
    const stranger = await cert('not-a-token');
    const opts = (c: Pem, headers?: Record<string, string>) => ({
      ca: ca.cert,
      cert: c,
      ...(headers ? { headers } : {}),
    });

    // A certificate naming a management token never carries its rights: 403 on an operator endpoint, whether
    // the AccessorID is in the allow list (refused by name) or not (the request stays anonymous).
    for (const cn of [MANAGER, ACL_WRITER, INITIAL]) {
      const res = await get(hub.httpPort, '/v1/xds/clients', opts(await cert(cn)));
      assert.equal(res.status, 403, `${cn}: ${res.body}`);
      assert.match(res.body, /a client certificate may not act as token .* ACL management/);
    }
    const notListed = await get(hub.httpPort, '/v1/xds/clients', opts(await cert(UNLISTED_MANAGER)));
    assert.equal(notListed.status, 403, notListed.body);
    assert.match(notListed.body, /anonymous token/);
    // The management token's secret still works over the same mutual-TLS connection.
    assert.equal((await get(hub.httpPort, '/v1/xds/clients', opts(stranger, { 'x-consul-token': ROOT }))).status, 200);

    // A certificate naming the narrow token has exactly that token's rights: the same answers as its secret.
    const named = await cert(NARROW);
    const probes: [string, string][] = [
      ['/v1/catalog/service/web', 'reads web'],
      ['/v1/catalog/service/db', 'db filtered out'],
      ['/v1/catalog/services', 'only web listed'],
      ['/v1/xds/clients', 'no operator:read'],
      ['/v1/acl/tokens', 'no acl:read'],
    ];
    for (const [path, what] of probes) {
      const byCert = await get(hub.httpPort, path, opts(named));
      const bySecret = await get(hub.httpPort, path, opts(stranger, { 'x-consul-token': narrow.secret }));
      assert.equal(byCert.status, bySecret.status, `${path} (${what}): ${byCert.body}`);
      if (byCert.status === 200) assert.deepEqual(JSON.parse(byCert.body), JSON.parse(bySecret.body), path);
    }
    assert.equal(JSON.parse((await get(hub.httpPort, '/v1/catalog/service/web', opts(named))).body).length, 1);
    assert.deepEqual(JSON.parse((await get(hub.httpPort, '/v1/catalog/service/db', opts(named))).body), []);
    assert.equal((await get(hub.httpPort, '/v1/xds/clients', opts(named))).status, 403);
    // A listed AccessorID that names no token (deleted, expired, never made) is "ACL not found".
    const gone = await get(hub.httpPort, '/v1/catalog/service/web', opts(await cert(GONE)));
    assert.equal(gone.status, 403);
    assert.equal(gone.body, 'ACL not found');
    // A certificate whose CN is not an allowed AccessorID is just a connection: the request is anonymous.
    assert.match((await get(hub.httpPort, '/v1/acl/tokens', opts(stranger))).body, /anonymous token/);
    // A token in the request wins over the certificate.
    const anon = await get(hub.httpPort, '/v1/catalog/service/web', opts(named, { 'x-consul-token': 'anonymous' }));
    assert.deepEqual(JSON.parse(anon.body), []);

    // gRPC does not map certificates (docs/security.md): Subscribe without a Token is anonymous even with
    // the narrow token's certificate, and the token's secret in the request is what counts.
    const grpcNamed = tlsSubscribeClient(hub.grpcPort, ca.cert, named);
    clients.push(grpcNamed);
    const denied = await new StreamReader(grpcNamed.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' } }))
      .status;
    assert.equal(denied.code, grpc.status.PERMISSION_DENIED, denied.details);
    const s = new StreamReader(
      grpcNamed.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' }, Token: narrow.secret }),
    );
    assert.match(describe((await s.take(2))[1]!), /^eos@/);
    s.call.cancel();
  } finally {
    for (const c of clients) c.close();
    await hub.close();
    await dir.cleanup();
  }
});
