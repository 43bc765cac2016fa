// The built-in CA through Consul's endpoints: the root made on first start
// (ECDSA P-256, SPIFFE trust domain, no private key in any answer), leaves
// with the service's SPIFFE ID signed by it, renewal before expiry, a root
// rotation by a new key (cross-signed, both roots trusted, every leaf
// reissued), configuration refusals, and the root kept across a restart.

import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, X509Certificate } from 'node:crypto';
import { after, before, test } from 'node:test';
import { renewAt } from '../../src/connect/manager';
import type { Hub } from '../../src/hub';
import { call, startHub } from '../helpers/hub';
import { tmpDir } from '../helpers/tmp';
import { until } from '../helpers/until';

let hub: Hub;

async function ok(method: string, url: string, body?: unknown) {
  const res = await call(hub, method, url, body);
  assert.equal(res.status, 200, `${method} ${url}: ${res.text}`);
  return res;
}

function spiffeOf(cert: X509Certificate): string | undefined {
  return /URI:(spiffe:\/\/\S+?)(,|$)/.exec(cert.subjectAltName ?? '')?.[1];
}

/** The certificates of a PEM chain, in order. */
function chainOf(pem: string): X509Certificate[] {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map(
    (m) => new X509Certificate(m[0]),
  );
}

before(async () => {
  hub = await startHub({ nodeName: 'ca-node', datacenter: 'dc1' });
});
after(() => hub.close());

test('the first start makes one ECDSA P-256 root with the SPIFFE trust domain; no answer carries its private key', async () => {
  const roots = (await ok('GET', '/v1/connect/ca/roots')).json;
  assert.match(roots.TrustDomain, /^[0-9a-f-]{36}\.consul$/);
  assert.equal(roots.Roots.length, 1);
  const [root] = roots.Roots;
  assert.equal(root.Active, true);
  assert.equal(roots.ActiveRootID, root.ID);
  assert.equal(root.PrivateKey, undefined);
  assert.equal(root.PrivateKeyType, 'ec');
  assert.equal(root.PrivateKeyBits, 256);
  const cert = new X509Certificate(root.RootCert);
  assert.equal(cert.ca, true);
  assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  assert.equal(spiffeOf(cert), `spiffe://${roots.TrustDomain}`);
  assert.equal(root.ID, cert.fingerprint.toLowerCase(), 'the root ID is its SHA-1 fingerprint (Consul)');
  assert.equal(root.ExternalTrustDomain, roots.TrustDomain.replace(/\.consul$/, ''));
  assert.deepEqual((await ok('GET', '/v1/agent/connect/ca/roots')).json, roots);
  const pem = await ok('GET', '/v1/connect/ca/roots?pem=true');
  assert.equal(pem.text.trim(), root.RootCert.trim());
  const config = (await ok('GET', '/v1/connect/ca/configuration')).json;
  assert.equal(config.Provider, 'consul');
  assert.equal(config.Config.LeafCertTTL, '72h0m0s');
  assert.equal(config.ClusterID, root.ExternalTrustDomain);
  assert.ok(!JSON.stringify(config).includes('PRIVATE KEY'));
});

test('a leaf carries the service SPIFFE ID, is signed by the active root, lives 72 h, and its key matches; asking again gives the same leaf', async () => {
  const roots = (await ok('GET', '/v1/connect/ca/roots')).json;
  const res = await ok('GET', '/v1/agent/connect/ca/leaf/web');
  const leaf = res.json;
  assert.equal(leaf.Service, 'web');
  assert.equal(leaf.ServiceURI, `spiffe://${roots.TrustDomain}/ns/default/dc/dc1/svc/web`);
  const [cert] = chainOf(leaf.CertPEM);
  assert.equal(spiffeOf(cert!), leaf.ServiceURI);
  assert.equal(cert!.ca, false);
  assert.ok(cert!.verify(new X509Certificate(roots.Roots[0].RootCert).publicKey), 'signed by the root');
  assert.equal(cert!.serialNumber.toLowerCase(), leaf.SerialNumber.replace(/:/g, ''));
  const life = Date.parse(leaf.ValidBefore) - Date.parse(leaf.ValidAfter);
  assert.ok(Math.abs(life - (72 * 3600e3 + 60e3)) < 5_000, `lifetime ${life} ms`);
  const key = createPrivateKey(leaf.PrivateKeyPEM);
  const signature = sign('sha256', Buffer.from('x'), key);
  assert.ok(
    verify('sha256', Buffer.from('x'), cert!.publicKey, signature),
    'the private key belongs to the certificate',
  );
  assert.equal(res.index, BigInt(leaf.ModifyIndex));
  const again = (await ok('GET', '/v1/agent/connect/ca/leaf/web')).json;
  assert.equal(again.SerialNumber, leaf.SerialNumber);
  // A name a SPIFFE ID cannot carry gets no leaf (and nothing is appended for it).
  const before = hub.catalog.lastIndex();
  for (const name of ['a%20b', '*', 'a%2Fb']) {
    const bad = await call(hub, 'GET', `/v1/agent/connect/ca/leaf/${name}`);
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.text, /service: ".+" cannot be in the mesh/);
  }
  assert.equal(hub.catalog.lastIndex(), before);
});

test('registering a sidecar gets its service a leaf without anyone asking', async () => {
  await ok('PUT', '/v1/agent/service/register', {
    Name: 'api',
    Port: 9000,
    Connect: { SidecarService: { Port: 26000, Checks: [{ TTL: '1m' }] } },
  });
  await until(() => hub.catalog.connectCa().leaves.has('api'), 'a leaf for api');
  assert.ok(hub.catalog.connectCa().leaves.has('api'), 'leaf issued for api');
  assert.deepEqual(hub.connect.wanted(), ['api', 'web']);
});

test('CA configuration: what the hub does not serve is a 400 naming the field; LeafCertTTL is kept in Go spelling', async () => {
  const bad = async (body: unknown, re: RegExp) => {
    const res = await call(hub, 'PUT', '/v1/connect/ca/configuration', body);
    assert.equal(res.status, 400, res.text);
    assert.match(res.text, re);
  };
  await bad({ Provider: 'vault', Config: {} }, /Provider: only the built-in CA/);
  await bad({ Provider: 'consul', Config: { PrivateKeyType: 'rsa' } }, /Config\.PrivateKeyType: only "ec"/);
  await bad({ Provider: 'consul', Config: { PrivateKeyBits: 384 } }, /Config\.PrivateKeyBits: only 256-bit/);
  await bad({ Provider: 'consul', Config: { LeafCertTTL: '9000h' } }, /Config\.LeafCertTTL: must be between/);
  await bad({ Provider: 'consul', Config: { RotationPeriod: '90d' } }, /Config\.RotationPeriod: not supported/);
  await bad({ Provider: 'consul', Config: { PrivateKey: 'nope' } }, /Config\.PrivateKey: not a PEM private key/);
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
  await bad({ Provider: 'consul', Config: { PrivateKey: rsa } }, /Config\.PrivateKey: must be an ECDSA P-256 key/);
  const other = (await ok('GET', '/v1/connect/ca/roots')).json.Roots[0].RootCert;
  const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' });
  await bad(
    { Provider: 'consul', Config: { PrivateKey: key, RootCert: other } },
    /Config\.RootCert: does not match Config\.PrivateKey/,
  );
  await ok('PUT', '/v1/connect/ca/configuration', {
    Provider: 'consul',
    Config: { LeafCertTTL: '1h', PrivateKeyType: 'ec', PrivateKeyBits: 256 },
  });
  const config = (await ok('GET', '/v1/connect/ca/configuration')).json;
  assert.equal(config.Config.LeafCertTTL, '1h0m0s');
  assert.equal((await ok('GET', '/v1/connect/ca/roots')).json.Roots.length, 1, 'a TTL change is no rotation');
});

test('CA configuration: an empty, unknown or partial body is a 400 naming the field and appends nothing; a GET answer sent back is taken', async () => {
  const before = hub.catalog.lastIndex();
  const modify = (await ok('GET', '/v1/connect/ca/configuration')).json.ModifyIndex;
  const cases: [unknown, RegExp][] = [
    [undefined, /body: must be a JSON object/],
    ['', /body: must be a JSON object/],
    [[], /body: must be a JSON object/],
    [{}, /Provider: is required/],
    [{ Provider: 'consul' }, /Config: is required/],
    [{ Provider: 'consul', Config: { LeafCertTTL: '24h' }, Bogus: 1 }, /Bogus: not supported by this hub/],
    [{ Provider: 'consul', Config: { LeafCertTL: '24h' } }, /Config\.LeafCertTL: not supported by this hub/],
    [{ Provider: 'consul', Config: 'x' }, /Config: must be a JSON object/],
    [{ Provider: 'consul', Config: {}, ClusterID: 'another' }, /ClusterID: cannot be changed/],
    [{ Provider: 'consul', Config: {}, State: { k: 'v' } }, /State: must be null or empty/],
  ];
  for (const [body, re] of cases) {
    const res = await call(hub, 'PUT', '/v1/connect/ca/configuration', body);
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
    assert.match(res.text, re);
  }
  assert.equal(hub.catalog.lastIndex(), before, 'no refused body appended anything');
  assert.equal((await ok('GET', '/v1/connect/ca/configuration')).json.ModifyIndex, modify);
  // What a GET answers (as the Go client's CAGetConfig → CASetConfig does) is a valid body.
  const got = (await ok('GET', '/v1/connect/ca/configuration')).json;
  await ok('PUT', '/v1/connect/ca/configuration', got);
  const again = (await ok('GET', '/v1/connect/ca/configuration')).json;
  assert.deepEqual(again.Config, got.Config);
  assert.ok(again.ModifyIndex > modify);
});

test('a new key rotates the root: both roots trusted, the new one cross-signed by the old, every leaf reissued under it', async () => {
  const before = (await ok('GET', '/v1/connect/ca/roots')).json;
  const oldRoot = before.Roots[0];
  const waiting = call(
    hub,
    'GET',
    `/v1/connect/ca/roots?index=${(await ok('GET', '/v1/connect/ca/roots')).index}&wait=10s`,
  );
  const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;
  await ok('PUT', '/v1/connect/ca/configuration', { Provider: 'consul', Config: { PrivateKey: key } });
  const after = (await waiting).json;
  assert.equal(after.Roots.length, 2, 'the blocking query answered with both roots');
  const [old, fresh] = after.Roots;
  assert.equal(old.ID, oldRoot.ID);
  assert.equal(old.Active, false);
  assert.notEqual(old.RotatedOutAt, '0001-01-01T00:00:00Z');
  assert.equal(fresh.Active, true);
  assert.equal(after.ActiveRootID, fresh.ID);
  assert.equal(after.TrustDomain, before.TrustDomain, 'the trust domain survives a rotation');
  const freshCert = new X509Certificate(fresh.RootCert);
  const spki = (k: string) => createPublicKey(k).export({ type: 'spki', format: 'der' }).toString('hex');
  assert.equal(
    freshCert.publicKey.export({ type: 'spki', format: 'der' }).toString('hex'),
    spki(key),
    'the new root is the operator key',
  );
  const [cross] = chainOf(fresh.IntermediateCerts[0]);
  assert.equal(cross!.subject, freshCert.subject);
  assert.equal(cross!.issuer, new X509Certificate(old.RootCert).subject);
  assert.ok(cross!.verify(new X509Certificate(old.RootCert).publicKey), 'cross-signed by the old root');
  // Every wanted leaf moves to the new root (web was asked for, api has a sidecar).
  for (const service of ['web', 'api']) {
    const reissued = () => hub.catalog.connectCa().leaves.get(service)?.RootID === fresh.ID;
    await until(reissued, `${service} reissued under the new root`);
    const leaf: any = hub.catalog.connectCa().leaves.get(service);
    assert.equal(leaf?.RootID, fresh.ID, `${service} reissued under the new root`);
    const chain = chainOf(leaf.CertPEM);
    assert.ok(chain[0]!.verify(freshCert.publicKey));
    assert.equal(
      chain[1]?.issuer,
      cross!.issuer,
      'the leaf chain carries the cross-signed root for peers that trust only the old one',
    );
  }
  const again = (await ok('GET', '/v1/agent/connect/ca/leaf/web')).json;
  assert.ok(chainOf(again.CertPEM)[0]!.verify(freshCert.publicKey));
  // The same key again is no rotation.
  await ok('PUT', '/v1/connect/ca/configuration', { Provider: 'consul', Config: { PrivateKey: key } });
  assert.equal((await ok('GET', '/v1/connect/ca/roots')).json.Roots.length, 2);
});

test('leaves are renewed before they expire; a blocking leaf query answers with the new one; a leaf nobody asks for is let go after a lifetime', async () => {
  const short = await startHub({ nodeName: 'renew-node', caLeafCertTtlMs: 3_000 });
  try {
    const first = await call(short, 'GET', '/v1/agent/connect/ca/leaf/db');
    assert.equal(first.status, 200);
    const next = await call(short, 'GET', `/v1/agent/connect/ca/leaf/db?index=${first.index}&wait=10s`);
    assert.equal(next.status, 200);
    assert.notEqual(next.json.SerialNumber, first.json.SerialNumber, 'renewed with nobody asking again');
    // The schedule, not the wall clock of a loaded machine: renewal falls at 60–90 % of the lifetime.
    const at = renewAt(first.json);
    const [from, to] = [Date.parse(first.json.ValidAfter), Date.parse(first.json.ValidBefore)];
    assert.ok(at >= from + 0.6 * (to - from) && at <= from + 0.9 * (to - from), 'renewal scheduled before expiry');
    // Nobody asks again: one lifetime after the last ask, db is no longer kept fresh.
    assert.ok(short.connect.wanted().includes('db'));
    await until(() => !short.connect.wanted().includes('db'), 'db let go');
    assert.ok(!short.connect.wanted().includes('db'), 'let go one lifetime after the last ask');
    await call(short, 'GET', '/v1/agent/connect/ca/leaf/db');
    assert.ok(short.connect.wanted().includes('db'), 'asking again keeps it fresh again');
  } finally {
    await short.close();
  }
});

test('the root is kept in the log: a restarted hub on the same data has the same root and leaves', async () => {
  const dir = await tmpDir('xdshub-ca-restart');
  try {
    const first = await startHub({ nodeName: 'restart-node', store: { kind: 'sqlite' }, dataDir: dir.path });
    const roots = (await call(first, 'GET', '/v1/connect/ca/roots')).json;
    const leaf = (await call(first, 'GET', '/v1/agent/connect/ca/leaf/web')).json;
    await first.close();
    const second = await startHub({ nodeName: 'restart-node', store: { kind: 'sqlite' }, dataDir: dir.path });
    try {
      assert.deepEqual((await call(second, 'GET', '/v1/connect/ca/roots')).json, roots);
      assert.equal((await call(second, 'GET', '/v1/agent/connect/ca/leaf/web')).json.SerialNumber, leaf.SerialNumber);
    } finally {
      await second.close();
    }
  } finally {
    await dir.cleanup();
  }
});
