// One bench client process: opens N subscribers, each on its own channel (its
// own TCP connection), reads raw Event bytes, and reports progress to the main
// process; latency = receive time − the source timestamp in the event.
import * as grpc from '@grpc/grpc-js';
import { type ClientToMain, HIST_BUCKETS, isEndOfSnapshot, type MainToClient, nowUs, readMarker } from './common';

const [address, countText, path, requestHex] = process.argv.slice(2);
const count = Number(countText);
const request = Buffer.from(requestHex ?? '', 'hex');
const send = (m: ClientToMain) => process.send?.(m);

const hist = new Array<number>(HIST_BUCKETS).fill(0);
const lastSeq = new Array<number>(count).fill(-1);
const ended: Record<string, number> = {};
let live = 0;
let received = 0;
let snapshotEvents = 0;
const clients: grpc.Client[] = [];
const calls: grpc.ClientReadableStream<Buffer>[] = [];

for (let i = 0; i < count; i++) {
  // A local subchannel pool (and a distinct option) keeps channels from sharing a connection.
  const client = new grpc.Client(address as string, grpc.credentials.createInsecure(), {
    'grpc.use_local_subchannel_pool': 1,
    'bench.subscriber': i,
  } as grpc.ChannelOptions);
  clients.push(client);
  let isLive = false;
  const call = client.makeServerStreamRequest(
    path as string,
    (b: Buffer) => b,
    (b: Buffer) => b,
    request,
  );
  call.on('data', (buf: Buffer) => {
    if (!isLive) {
      if (isEndOfSnapshot(buf)) {
        isLive = true;
        live++;
      } else snapshotEvents++;
      return;
    }
    const m = readMarker(buf);
    if (m === undefined) return;
    received++;
    lastSeq[i] = m.seq;
    const ms = Math.floor((nowUs() - m.tsUs) / 1000);
    hist[Math.min(Math.max(ms, 0), HIST_BUCKETS - 1)]++;
  });
  call.on('error', () => undefined);
  call.on('status', (st: grpc.StatusObject) => {
    const name = grpc.status[st.code] ?? String(st.code);
    ended[name] = (ended[name] ?? 0) + 1;
  });
  calls.push(call);
}

const timer = setInterval(() => {
  let min = Infinity;
  for (const s of lastSeq) if (s < min) min = s;
  send({ type: 'progress', live, minSeq: min, received, snapshotEvents });
}, 50);

process.on('message', (m: MainToClient) => {
  if (m.type !== 'stop') return;
  clearInterval(timer);
  send({ type: 'final', received, hist, ended });
  for (const c of calls) c.cancel();
  for (const c of clients) c.close();
  setImmediate(() => process.disconnect());
});
