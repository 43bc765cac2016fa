// X-Xdshub-Changed: the keys an applied entry changed, spelled when asked for.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseChangedKeys, trackChangedKeys } from '../../src/fanout/changed';
import { call, startHub } from '../helpers/hub';

test('names the (topic, subject) pairs of a write, once each; entries that changed nothing and forgotten ones have none', async () => {
  const hub = await startHub();
  const tracker = trackChangedKeys(hub.catalog, 2);
  try {
    const reg = (node: string, service: string) =>
      call(hub, 'PUT', '/v1/catalog/register', {
        Node: node,
        Address: '10.0.0.1',
        Service: { Service: service, Port: 80 },
      });
    const first = await reg('n1', 'Web');
    const keys = parseChangedKeys(tracker.get(first.index));
    // A new service: its health topics (plain and Connect) and the service list, each once, subjects as Consul spells them.
    assert.ok(keys.length > 0);
    assert.equal(new Set(keys).size, keys.length);
    assert.ok(
      keys.some((k) => k.endsWith('|web')),
      keys.join(' '),
    );
    const same = await reg('n1', 'Web'); // a no-op: nothing appended, the index does not move
    assert.equal(same.index, first.index);
    await reg('n2', 'api');
    await reg('n3', 'api');
    assert.equal(tracker.get(first.index), undefined); // only the last 2 are kept
    assert.equal(tracker.get(999n), undefined);
  } finally {
    tracker.stop();
    await hub.close();
  }
});
