// TLS on both ports with certificates made at test time: a rotated certificate
// is served to new connections while open ones (an HTTP keep-alive connection,
// a Subscribe stream) carry on; mutual TLS refuses clients without a
// certificate from the CA, and --tls-client-cert-token makes a certificate's CN
// act as the token with that AccessorID.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { Agent, request } from 'node:https';
import { connect } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { loadSubscribeProto } from '../../src/subscribe/proto';
import { makeCa, writePair, type Pem } from '../helpers/certs';
import { tmpDir } from '../helpers/tmp';
import { until as poll } from '../helpers/until';
import { StreamReader, describe, type SubscribeClient } from '../subscribe/grpc-helpers';
import { ROOT, aclHub, registerBody, tokenWith, as } from './helpers';

interface Got {
  status: number;
  body: string;
  serial: string;
  reused: boolean;
}

function get(port: number, path: string, opts: { ca: string; agent?: Agent; cert?: Pem; headers?: Record<string, string> }): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, ca: opts.ca, agent: opts.agent ?? false, headers: opts.headers, ...(opts.cert ? { cert: opts.cert.cert, key: opts.cert.key } : {}) },
      (res) => {
        const peer = (res.socket as unknown as { getPeerX509Certificate(): X509Certificate | undefined }).getPeerX509Certificate();
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
    const socket = connect({ host: '127.0.0.1', port, ca, ALPNProtocols: ['h2'], servername: 'localhost', ...(cert ? { cert: cert.cert, key: cert.key } : {}) }, () => {
      const serial = socket.getPeerX509Certificate()?.serialNumber ?? '';
      socket.destroy();
      resolve(serial);
    });
    socket.on('error', reject);
  });
}

/** Polls until `check` holds; a connection refused mid-rotation counts as "not yet" and is named if it is the last word. */
async function until(what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  await poll(check, { what, timeout: ms, interval: 50, retryErrors: true });
}

function tlsSubscribeClient(port: number, ca: string, cert?: Pem): SubscribeClient {
  const Ctor = grpc.makeGenericClientConstructor(loadSubscribeProto().service, 'StateChangeSubscription');
  const creds = grpc.credentials.createSsl(Buffer.from(ca), cert ? Buffer.from(cert.key) : null, cert ? Buffer.from(cert.cert) : null);
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
    const stream = new StreamReader(client.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' }, Token: ROOT }));
    await stream.take(2);

    const second = await ca.issue('hub', 'server');
    await writePair(dir.path, second);
    await until('HTTP to serve the new certificate', async () => (await get(hub.httpPort, '/v1/status/leader', { ca: ca.cert })).serial === second.serial);
    await until('gRPC to serve the new certificate', async () => (await servedSerial(hub.grpcPort, ca.cert)) === second.serial);

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

test('mutual TLS: no client certificate, no connection; a certificate CN can act as a token', async () => {
  const dir = await tmpDir('mtls');
  const ca = await makeCa(dir.path);
  const files = await writePair(dir.path, await ca.issue('hub', 'server'));
  const hub = await aclHub({ tlsCert: files.cert, tlsKey: files.key, tlsCa: ca.cert ? `${dir.path}/ca.pem` : undefined, tlsClientCertToken: true });
  try {
    await assert.rejects(get(hub.httpPort, '/v1/status/leader', { ca: ca.cert }));
    const noCert = await new StreamReader(tlsSubscribeClient(hub.grpcPort, ca.cert).Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' }, Token: ROOT })).status;
    assert.equal(noCert.code, grpc.status.UNAVAILABLE);

    const reader = await tokenWith(hub, 'acl = "read"');
    const stranger = await ca.issue('not-a-token', 'client');
    const named = await ca.issue(reader.accessor, 'client');
    // A certificate whose CN names no token is "ACL not found"; one naming a token acts as it.
    assert.equal((await get(hub.httpPort, '/v1/acl/tokens', { ca: ca.cert, cert: stranger })).body, 'ACL not found');
    assert.equal((await get(hub.httpPort, '/v1/acl/tokens', { ca: ca.cert, cert: named })).status, 200);
    assert.equal((await get(hub.httpPort, '/v1/acl/policy', { ca: ca.cert, cert: named })).status, 404);
    // A token in the request wins over the certificate.
    const anon = await get(hub.httpPort, '/v1/acl/tokens', { ca: ca.cert, cert: named, headers: { 'x-consul-token': 'anonymous' } });
    assert.equal(anon.status, 403);
    const withCert = tlsSubscribeClient(hub.grpcPort, ca.cert, stranger);
    await as(hub, ROOT, 'PUT', '/v1/catalog/register', registerBody('n1', 'web'));
    const s = new StreamReader(withCert.Subscribe({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' }, Token: ROOT }));
    assert.match(describe((await s.take(2))[1]!), /^eos@/);
    s.call.cancel();
    withCert.close();
  } finally {
    await hub.close();
    await dir.cleanup();
  }
});
