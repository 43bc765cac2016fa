// The flood of stream-flood.int.test.ts, in a process of its own (forked by
// the test) so that the client's own work on 10,000 calls does not stall the
// test's HTTP reads: `count` Subscribe streams on one grpc-js connection. Sends
// the parent { accepted, ended } once every stream is accepted (response
// headers) or ended, then exits; exits too when the parent goes away.
import * as grpc from '@grpc/grpc-js';
import { loadSubscribeProto, SUBSCRIBE_METHOD_PATH } from '../../src/subscribe/proto';

export interface FloodResult {
  accepted: number;
  /** Ended streams by "CODE: details". */
  ended: Array<[string, number]>;
}

const [address, countText] = process.argv.slice(2);
const count = Number(countText);
process.on('disconnect', () => process.exit(0));

const client = new grpc.Client(address!, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 });
const subscribe = loadSubscribeProto().service.Subscribe!;
const request = subscribe.requestSerialize({ Topic: 'ServiceHealth', NamedSubject: { Key: 'web' } });
const raw = (b: Buffer) => b;
const ended = new Map<string, number>();
let accepted = 0;
let left = count;

function finish(): void {
  const result: FloodResult = { accepted, ended: [...ended] };
  process.send!(result, () => process.exit(0));
}

for (let i = 0; i < count; i++) {
  let done = false;
  const settle = (what: () => void) => {
    if (done) return;
    done = true;
    what();
    if (--left === 0) finish();
  };
  const call = client.makeServerStreamRequest(SUBSCRIBE_METHOD_PATH, raw, raw, request);
  call.on('metadata', () => settle(() => accepted++));
  call.on('error', () => undefined);
  call.on('status', (st: grpc.StatusObject) => {
    const key = `${grpc.status[st.code]}: ${st.details}`;
    settle(() => ended.set(key, (ended.get(key) ?? 0) + 1));
  });
}
