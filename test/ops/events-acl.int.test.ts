// The operator event stream (GET /v1/ops/events) under ACLs: its token is checked
// when the stream opens and again whenever the token's rights may change, so a
// deleted token, or one whose policy loses operator:read, ends the stream with
// a `denied` event instead of leaving it open (docs/dashboard.md). A node's xDS
// stream ending is an event too (`stream`), so the dashboard shows it at once.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { AdsClient } from '../acl/ads-client';
import { aclHub, as, ROOT, tokenWith } from '../acl/helpers';
import { until } from '../helpers/until';

let hub: Hub;
before(async () => {
  hub = await aclHub();
});
after(() => hub.close());

/** Opens the stream with `secret`; `text()` is what arrived so far, `ended` resolves when the hub closes it. */
async function openEvents(secret: string): Promise<{ text(): string; ended: Promise<void> }> {
  const res = await fetch(`${hub.httpUrl}/v1/ops/events?token=${secret}`);
  assert.equal(res.status, 200);
  let text = '';
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true });
    }
  })();
  await until(() => text.includes(': xdshub events'), { what: 'the stream opened' });
  return { text: () => text, ended };
}

test('deleting the token ends its open event stream with a denied event; other streams stay open', async () => {
  const doomed = await tokenWith(hub, 'operator = "read"');
  const kept = await tokenWith(hub, 'operator = "read"');
  const [a, b] = [await openEvents(doomed.secret), await openEvents(kept.secret)];
  const del = await as(hub, ROOT, 'DELETE', `/v1/acl/token/${doomed.accessor}`);
  assert.equal(del.status, 200, del.text);
  await a.ended;
  assert.match(a.text(), /event: denied/);
  // The kept stream still gets events: a write moves the index.
  await as(hub, ROOT, 'PUT', '/v1/kv/after-delete', 'x');
  await until(() => b.text().includes('event: index'), { what: 'an index event on the kept stream' });
  assert.doesNotMatch(b.text(), /event: denied/);
});

test("a policy update that takes operator:read away ends the token's stream", async () => {
  const t = await tokenWith(hub, 'operator = "read"');
  const stream = await openEvents(t.secret);
  const policy = (await as(hub, ROOT, 'GET', `/v1/acl/policy/${t.policyId}`)).json;
  const upd = await as(hub, ROOT, 'PUT', `/v1/acl/policy/${t.policyId}`, {
    ...policy,
    Rules: 'key_prefix "" { policy = "read" }',
  });
  assert.equal(upd.status, 200, upd.text);
  await stream.ended;
  assert.match(stream.text(), /event: denied/);
});

test('a node whose xDS stream ends is announced on the event stream', async () => {
  const t = await tokenWith(hub, 'operator = "read"');
  const stream = await openEvents(t.secret);
  const client = new AdsClient(hub.grpcPort, 'delta', 'leaving-node', ROOT);
  client.subscribe(TypeUrl.Cluster, ['*']);
  assert.ok(await client.next(), 'the stream was admitted and answered');
  client.close();
  await until(
    () => /event: stream\ndata: \{"node":"leaving-node","stream":\d+,"state":"closed"\}/.test(stream.text()),
    {
      what: "the leaving node's stream event",
    },
  );
});
