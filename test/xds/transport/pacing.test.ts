// X-STREAM-4: a real XdsStream wired to a real PushPipeline (as server.ts wires
// them) over a recording call, on mocked timers. Changes queued while a
// response is in flight wait for the pipeline's next delivery when its window
// is open, and go on the ACK when it is closed; what a request asks is
// answered at once.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { NO_INTERNING } from '../../../src/xds/transport/name-sets';
import { type PushOptions, PushPipeline } from '../../../src/xds/transport/push';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { decodeResponse } from '../../../src/xds/transport/wire';
import { recordingCall, startFakeStream } from './helpers/fake-stream';
import { cla, seed, TestProvider } from './helpers/fixtures';

function rig(t: TestContext, opts: PushOptions = { debounceMs: 50, maxDelayMs: 1000 }) {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const p = new TestProvider();
  seed(p);
  const push = new PushPipeline(p, opts);
  t.after(() => push.close());
  const { call, written } = recordingCall();
  const { send } = startFakeStream(call, p, 'delta', 'ads', {
    deps: {
      registry: {
        subscriptionChanged: (s, typeUrl, delta, names, wildcard) => push.update(s, typeUrl, delta, names, wildcard),
        names: NO_INTERNING,
        closed: (s) => push.remove(s),
      },
      pacing: { windowOpen: () => push.windowOpen(), defer: (s, at) => push.defer(s, at) },
    },
  });
  const response = (i: number) => decodeResponse('v3', 'DeltaDiscoveryResponse', written[i]!);
  const ack = () => send({ typeUrl: TypeUrl.ClusterLoadAssignment, responseNonce: response(written.length - 1).nonce });
  /** Whether response i carries c1 at its current version (the latest change). */
  const latest = (i: number) => {
    const res = response(i).resources.find((x: { name: string }) => x.name === 'c1');
    return (
      res?.version ===
      p
        .get(TypeUrl.ClusterLoadAssignment, { id: 'n', cluster: '', clientFeatures: [], userAgent: '' })
        .byName.get('c1')!.version
    );
  };
  // Subscribed to c1's endpoints and holding them (ACKed); then a quiet second, so the window is closed.
  send({ node: { id: 'n' }, typeUrl: TypeUrl.ClusterLoadAssignment, resourceNamesSubscribe: ['c1'] });
  assert.equal(written.length, 1, 'the initial request is answered at once');
  ack();
  t.mock.timers.tick(1000);
  return { p, push, send, written, response, ack, latest };
}

/** t = 0: a change goes at once (idle) and is left un-ACKed; t = 10: a second change, delivered at t = 50 while the first is in flight. */
function changeWhileInFlight(t: TestContext, r: ReturnType<typeof rig>): void {
  r.p.set(cla('c1', [9001]));
  assert.equal(r.written.length, 2, 'idle: the first change goes at once');
  t.mock.timers.tick(10);
  r.p.set(cla('c1', [9002]));
  t.mock.timers.tick(40); // t = 50: the window ends, the delivery finds the type in flight
  assert.equal(r.push.deliveries, 2);
  assert.equal(r.written.length, 2, 'in flight: marked, not sent');
}

test('X-STREAM-4: a change queued while a response is un-ACKed is not sent on the ACK while the window is open; it goes with the next delivery', (t) => {
  const r = rig(t);
  changeWhileInFlight(t, r);
  t.mock.timers.tick(10); // t = 60: the window reopened at 50 and lasts until 100
  assert.ok(r.push.windowOpen());
  r.ack();
  assert.equal(r.written.length, 2, 'the ACK inside the window sends nothing');
  t.mock.timers.tick(39);
  assert.equal(r.written.length, 2);
  t.mock.timers.tick(1); // t = 100: the next delivery
  assert.equal(r.written.length, 3, 'the queued change went with the delivery');
  assert.ok(r.latest(2), 'carrying the latest c1');
  assert.equal(r.push.deliveries, 3);
});

test('X-STREAM-4: an ACK when the window is closed sends the queued change at once', (t) => {
  const r = rig(t);
  changeWhileInFlight(t, r);
  t.mock.timers.tick(100); // t = 150: closed since 100
  assert.ok(!r.push.windowOpen());
  r.ack();
  assert.equal(r.written.length, 3, 'sent on the ACK');
  assert.ok(r.latest(2), 'carrying the latest c1');
});

test('X-STREAM-4: a new subscription is answered at once even inside the window, while queued changes wait', (t) => {
  const r = rig(t);
  changeWhileInFlight(t, r);
  t.mock.timers.tick(10);
  r.ack(); // c1's change is now deferred
  assert.equal(r.written.length, 2);
  r.send({ typeUrl: TypeUrl.ClusterLoadAssignment, resourceNamesSubscribe: ['c2'] });
  assert.equal(r.written.length, 3, 'the subscription is answered inside the window');
  assert.deepEqual(
    r
      .response(2)
      .resources.map((x: { name: string }) => x.name)
      .sort(),
    ['c1', 'c2'],
    'and the queued change rides along',
  );
  assert.ok(r.latest(2), 'carrying the latest c1');
});

test('X-STREAM-4: a change that waits for the next delivery still goes within --xds-max-delay of its arrival', (t) => {
  // A window longer than the max delay: the max delay wins for deferred changes too.
  const r = rig(t, { debounceMs: 200, maxDelayMs: 30 });
  r.p.set(cla('c1', [9001])); // t = 0, at once, left un-ACKed
  t.mock.timers.tick(10);
  r.p.set(cla('c1', [9002])); // t = 10: delivered at 40 (max delay), the type still in flight
  t.mock.timers.tick(30);
  assert.equal(r.written.length, 2);
  r.ack(); // t = 40: the window (until 240) is open, but the change arrived at 10
  assert.equal(r.written.length, 2);
  t.mock.timers.tick(0);
  assert.equal(r.written.length, 3, 'sent at once by the pipeline: its max delay was up');
  assert.ok(r.latest(2), 'carrying the latest c1');
});
