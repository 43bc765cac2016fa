// The config-kind registry (src/catalog/config-kinds.ts) end to end: every kind
// it declares is accepted by PUT /v1/config's validation, crosses the Subscribe
// wire and back as itself on its own topic, is watched by the xDS translation
// when it says so, and names an ACL right for writing. A kind half-added to the
// registry fails here (or in the build, where a record over every kind lacks it).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CONFIG_ENTRY_KINDS,
  CONFIG_KINDS,
  type ConfigEntryKind,
  KIND_BY_WIRE,
  XDS_WATCHED_KINDS,
} from '../../src/catalog/config-kinds';
import type { ConfigEntry } from '../../src/catalog/types';
import type { Event__Output } from '../../src/gen/subscribe/subscribe/Event';
import { parseConfigEntry } from '../../src/http/translate/config-entries';
import { createWireDecoder } from '../../src/materializer/from-wire';
import { loadSubscribeProto } from '../../src/subscribe/proto';
import { createEventEncoder } from '../../src/subscribe/wire';
import { config, items } from '../materializer/fixtures';

/** The smallest body each kind's validator accepts: a record over every kind, so a new kind fails to build here. */
const MINIMAL: Record<ConfigEntryKind, Record<string, unknown>> = {
  'service-defaults': { Name: 'web', Protocol: 'http' },
  'service-resolver': { Name: 'web' },
  'ingress-gateway': { Name: 'ing', Listeners: [] },
  'http-route': { Name: 'route', Parents: [{ Kind: 'api-gateway', Name: 'gw' }], Rules: [] },
  mesh: {},
  'service-intentions': { Name: 'web', Sources: [{ Name: 'api', Action: 'allow' }] },
  'service-router': { Name: 'web', Routes: [] },
  'service-splitter': { Name: 'web', Splits: [{ Weight: 100 }] },
  'proxy-defaults': { Name: 'global', Config: { protocol: 'http' } },
  'terminating-gateway': { Name: 'term', Services: [{ Name: 'db' }] },
};

/** Kinds anyone may read, as in Consul (MeshConfigEntry and ProxyConfigEntry CanRead). */
const READ_BY_ANYONE: ReadonlySet<ConfigEntryKind> = new Set(['mesh', 'proxy-defaults']);

const proto = loadSubscribeProto();
const encoder = createEventEncoder(proto);
const decoder = createWireDecoder(proto);

describe('config-kind registry', () => {
  test('every declared kind is validated and stored under its own name', () => {
    for (const kind of CONFIG_ENTRY_KINDS) {
      const entry = parseConfigEntry({ Kind: kind, ...MINIMAL[kind] });
      assert.equal(entry.Kind, kind, kind);
    }
  });

  test('wire names and topics are one per kind', () => {
    assert.equal(KIND_BY_WIRE.size, CONFIG_ENTRY_KINDS.length, 'a wire kind name used twice');
    const topics = new Set(CONFIG_ENTRY_KINDS.map((k) => CONFIG_KINDS[k].topic));
    assert.equal(topics.size, CONFIG_ENTRY_KINDS.length, 'a topic used by two kinds');
    const members = new Set(CONFIG_ENTRY_KINDS.map((k) => CONFIG_KINDS[k].wire.member));
    assert.equal(members.size, CONFIG_ENTRY_KINDS.length, 'a oneof member used by two kinds');
  });

  test('every kind crosses the Subscribe wire and back as itself', () => {
    for (const kind of CONFIG_ENTRY_KINDS) {
      const parsed = parseConfigEntry({ Kind: kind, ...MINIMAL[kind] });
      const entry = { ...parsed, CreateIndex: 3, ModifyIndex: 3 } as ConfigEntry;
      const event = config(3, 'upsert', entry);
      const decoded = proto.decodeEvent(encoder.encode(items(3, event))) as unknown as Event__Output;
      const back = decoder.item(decoded, event.topic, undefined);
      assert.equal(back.kind, 'events', kind);
      if (back.kind !== 'events') continue;
      const payload = back.events[0]?.payload;
      assert.equal(payload?.type, 'config-entry', kind);
      if (payload?.type !== 'config-entry') continue;
      assert.equal(payload.entry.Kind, kind);
      assert.equal(payload.entry.Name, entry.Name, kind);
      assert.equal(back.events[0]?.topic, CONFIG_KINDS[kind].topic, kind);
    }
  });

  test('the xDS translation watches exactly the kinds that say so', () => {
    assert.deepEqual(
      [...XDS_WATCHED_KINDS],
      CONFIG_ENTRY_KINDS.filter((k) => CONFIG_KINDS[k].xds),
    );
  });

  test('writing an entry of any kind needs a right; reading one needs one unless the kind is global', () => {
    for (const kind of CONFIG_ENTRY_KINDS) {
      const spec = CONFIG_KINDS[kind];
      assert.ok(spec.right('x', 'write'), `${kind}: a write that needs no right lets any token change it`);
      if (READ_BY_ANYONE.has(kind))
        assert.equal(spec.right('x', 'read'), undefined, `${kind}: Consul lets anyone read it`);
      else assert.ok(spec.right('x', 'read'), `${kind}: readable by anyone`);
    }
  });
});
