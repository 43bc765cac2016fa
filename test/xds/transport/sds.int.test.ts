// SDS through the generic transport: a Secret is one more resource type (named
// subscriptions, no wildcard, not full state in SotW, pushed after RDS), served
// over the same ADS stream in Delta and SotW, with a change pushed to the
// clients that named it; a change scoped to node ids reaches only those nodes.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { type TestContext, test } from 'node:test';
import { encodeResource } from '../../../src/xds/transport/envoy-proto';
import type { XdsResource } from '../../../src/xds/transport/provider';
import { resourceTypeOf } from '../../../src/xds/transport/resource-types';
import { TypeUrl, TypeUrlV2 } from '../../../src/xds/transport/type-urls';
import { decodeAny, decodeAs } from './helpers/client';
import { TestProvider } from './helpers/fixtures';
import { startHub } from './helpers/harness';
import { DeltaScript, SotwScript } from './helpers/scripts';

const SDS = TypeUrl.Secret;

function secret(name: string, pem: string): XdsResource {
  const encoded = encodeResource('envoy.extensions.transport_sockets.tls.v3.Secret', {
    name,
    validation_context: { trusted_ca: { inline_string: pem } },
  });
  return { name, typeUrl: SDS, encoded, version: createHash('sha256').update(encoded).digest('hex').slice(0, 16) };
}

async function setup(t: TestContext) {
  const p = new TestProvider();
  p.set(secret('roots', 'ROOT-1'), secret('leaf:web', 'LEAF-1'));
  const hub = await startHub(p);
  t.after(() => hub.stop());
  return { p, hub };
}

test('the Secret type: v3 and v2 type URLs, SDS, by name only, not full state, after RDS', () => {
  const t = resourceTypeOf(SDS)!;
  assert.equal(t.short, 'SDS');
  assert.equal(resourceTypeOf(TypeUrlV2.Secret), t);
  assert.equal(t.wildcardAllowed, false);
  assert.equal(t.sotwFullState, false);
  assert.equal(t.order, resourceTypeOf(TypeUrl.RouteConfiguration)!.order + 1);
});

test('Delta ADS: secrets by name; a change is pushed; a change for other node ids is not', async (t) => {
  const { p, hub } = await setup(t);
  const d = new DeltaScript(hub.delta(), 'sidecar-1');
  d.send(SDS, ['roots']);
  const r1 = await d.expect(SDS);
  assert.deepEqual(
    r1.resources.map((r: any) => r.name),
    ['roots'],
  );
  assert.equal(
    decodeAs('envoy.extensions.transport_sockets.tls.v3.Secret', r1.resources[0].resource.value).validationContext
      .trustedCa.inlineString,
    'ROOT-1',
  );
  d.ack(r1);
  p.set(secret('roots', 'ROOT-2'));
  const r2 = await d.expect(SDS);
  assert.equal(
    decodeAs('envoy.extensions.transport_sockets.tls.v3.Secret', r2.resources[0].resource.value).validationContext
      .trustedCa.inlineString,
    'ROOT-2',
  );
  d.ack(r2);
  p.set(secret('leaf:web', 'LEAF-2'));
  await d.quiet(); // leaf:web is not subscribed: nothing comes
  // Content moves for everyone, but the change is announced for another node only: this one is not told.
  const sets = (p as unknown as { byType: Map<string, Map<string, XdsResource>> }).byType;
  sets.set(SDS, new Map([...sets.get(SDS)!, ['roots', secret('roots', 'ROOT-3')]]));
  p.announce([{ typeUrl: SDS, names: new Set(['roots']), nodeIds: new Set(['sidecar-2']) }]);
  await d.quiet();
  p.announce([{ typeUrl: SDS, names: new Set(['roots']), nodeIds: new Set(['sidecar-1']) }]);
  const r3 = await d.expect(SDS);
  assert.equal(
    decodeAs('envoy.extensions.transport_sockets.tls.v3.Secret', r3.resources[0].resource.value).validationContext
      .trustedCa.inlineString,
    'ROOT-3',
  );
});

test('SotW ADS: the named secrets, and only those; an update of one carries that one', async (t) => {
  const { p, hub } = await setup(t);
  const s = new SotwScript(hub.sotw(), 'sidecar-1');
  s.request(SDS, ['roots', 'leaf:web']);
  const r1 = await s.next();
  assert.equal(r1.typeUrl, SDS);
  assert.deepEqual(r1.resources.map((a: any) => decodeAny(a).name).sort(), ['leaf:web', 'roots']);
  s.ack(r1);
  p.set(secret('leaf:web', 'LEAF-2'));
  const r2 = await s.next();
  const names = r2.resources.map((a: any) => decodeAny(a).name);
  assert.ok(names.includes('leaf:web'));
});
