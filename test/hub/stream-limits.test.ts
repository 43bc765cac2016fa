// Admission at the door of a gRPC stream: past the per-connection limit the call
// ends with the counter's one shared RESOURCE_EXHAUSTED status, and refusals are
// logged with a count at most once per interval.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { status as GrpcStatus } from '@grpc/grpc-js';
import {
  admitStream,
  connectionStreamCounter,
  connectionStreamOptions,
  refusalLog,
  STREAM_HEADROOM,
} from '../../src/stream-limits';

function fakeCall(peer: string) {
  const emitted: unknown[] = [];
  return {
    emitted,
    getPeer: () => peer,
    emit: (_event: 'error', status: unknown) => {
      emitted.push(status);
      return true;
    },
  };
}

test("admitStream: streams past their connection's limit end with one shared status; a release frees a slot", () => {
  const counter = connectionStreamCounter(2);
  let refused = 0;
  const a = fakeCall('10.0.0.1:1000');
  const releases = [admitStream(counter, a, () => refused++), admitStream(counter, a, () => refused++)];
  assert.ok(releases.every((r) => typeof r === 'function'));
  const third = fakeCall('10.0.0.1:1000');
  const fourth = fakeCall('10.0.0.1:1000');
  assert.equal(
    admitStream(counter, third, () => refused++),
    undefined,
  );
  assert.equal(
    admitStream(counter, fourth, () => refused++),
    undefined,
  );
  assert.equal(refused, 2);
  assert.equal(third.emitted[0], counter.refusal, 'the refusal is one object, made once per counter');
  assert.equal(fourth.emitted[0], counter.refusal);
  assert.deepEqual(counter.refusal, {
    code: GrpcStatus.RESOURCE_EXHAUSTED,
    details: 'too many concurrent streams on this connection: at most 2 (--grpc-max-streams-per-connection)',
  });
  assert.ok(admitStream(counter, fakeCall('10.0.0.2:1000')), 'another connection has its own count');
  releases[0]!();
  releases[0]!(); // twice: counted once
  assert.equal(counter.count('10.0.0.1:1000'), 1);
  assert.ok(admitStream(counter, fakeCall('10.0.0.1:1000')));
  assert.equal(a.emitted.length, 0);
  assert.ok(admitStream(undefined, fakeCall('x')), 'no counter: no limit');
});

test('the HTTP/2 SETTINGS bound is the limit plus the headroom', () => {
  assert.deepEqual(connectionStreamOptions(2048), { 'grpc.max_concurrent_streams': 2048 + STREAM_HEADROOM });
});

test('refusalLog: the first refusal is logged, then at most one line per interval, counting those since', () => {
  const lines: Array<{ refused: number }> = [];
  let now = 0;
  const logger = { warn: (obj: { refused: number }) => void lines.push(obj) } as never;
  const note = refusalLog(logger, 'refusing', 1000, () => now);
  for (let i = 0; i < 500; i++) note();
  assert.deepEqual(lines, [{ refused: 1 }]);
  now = 1000;
  note();
  assert.deepEqual(lines, [{ refused: 1 }, { refused: 500 }]);
});
