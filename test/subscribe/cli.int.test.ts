// `xdshub subscribe` as a child process: JSON lines, Ctrl-C exits 0, and a
// server restart is survived by resuming with the last index (no new snapshot).

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { createCatalog } from '../../src/catalog/index';
import { createMemoryLog } from '../../src/log/memory';
import { createPublisher } from '../../src/subscribe/publisher';
import { spawnTracked } from '../helpers/procs';
import { silent, startSubscribeServer } from './grpc-helpers';
import { startSubscribeHub } from './hub-harness';

const ROOT = join(__dirname, '..', '..');

/** The CLI's stdout and stderr as line queues. */
function spawnCli(args: string[]) {
  const child: ChildProcess = spawnTracked(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'subscribe', ...args],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const queue = (stream: NodeJS.ReadableStream) => {
    const lines: string[] = [];
    let waiter: (() => void) | undefined;
    createInterface({ input: stream }).on('line', (l) => {
      lines.push(l);
      waiter?.();
    });
    return {
      all: lines,
      /** Next line (in order) matching `re`, skipping the others. */
      async next(re: RegExp = /.*/): Promise<string> {
        for (;;) {
          const i = lines.findIndex((l) => re.test(l));
          if (i >= 0) return lines.splice(0, i + 1)[i] as string;
          await new Promise<void>((r) => (waiter = r));
        }
      },
    };
  };
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, out: queue(child.stdout!), err: queue(child.stderr!), exited };
}

test('prints one JSON line per event and exits 0 on Ctrl-C', async () => {
  const h = await startSubscribeHub();
  try {
    await h.instance('web', 'w1');
    const cli = spawnCli(['--topic', 'ServiceHealth', '--key', 'web', '--addr', `127.0.0.1:${h.hub.grpcPort}`]);
    const first = JSON.parse(await cli.out.next());
    assert.equal(first.ServiceHealth.CheckServiceNode.Service.ID, 'w1');
    const eos = JSON.parse(await cli.out.next());
    assert.equal(eos.EndOfSnapshot, true);
    const i2 = await h.instance('web', 'w2');
    const live = JSON.parse(await cli.out.next());
    assert.equal(live.Index, String(i2));
    assert.equal(live.ServiceHealth.CheckServiceNode.Service.ID, 'w2');
    cli.child.kill('SIGINT');
    const [code] = await cli.exited;
    assert.equal(code, 0);
  } finally {
    await h.close();
  }
});

test('bad flags exit 2; a request the server refuses exits 1', async () => {
  const usage = spawnCli(['--topic', 'ServiceHealth']);
  assert.equal((await usage.exited)[0], 2);
  assert.match(usage.err.all.join('\n'), /--key is required/);
  const h = await startSubscribeHub();
  try {
    const refused = spawnCli(['--topic', 'ServiceList', '--key', 'web', '--addr', `127.0.0.1:${h.hub.grpcPort}`]);
    assert.equal((await refused.exited)[0], 1);
    assert.match(refused.err.all.join('\n'), /INVALID_ARGUMENT: .*can only be consumed using WildcardSubject/);
  } finally {
    await h.close();
  }
});

test('after a server restart the CLI resubscribes with its index: a new snapshot if web changed meanwhile, else live events only', async () => {
  const log = createMemoryLog();
  const catalog = await createCatalog({ log, logger: silent });
  const reg = (id: string) =>
    catalog.submit({
      type: 'register',
      node: { ID: '', Node: 'n1', Address: '10.0.0.1', Datacenter: 'dc1', TaggedAddresses: {}, Meta: {} },
      service: {
        Kind: '',
        ID: id,
        Service: 'web',
        Tags: [],
        Address: '',
        TaggedAddresses: {},
        Meta: {},
        Port: 80,
        Weights: { Passing: 1, Warning: 1 },
        EnableTagOverride: false,
      },
      checks: [],
      skipNodeUpdate: false,
    });
  let publisher = createPublisher({ catalog, logger: silent, snapshotCacheTtlMs: 10_000 });
  let server = await startSubscribeServer(publisher);
  const port = server.port;
  const cli = spawnCli(['--topic', 'ServiceHealth', '--key', 'web', '--addr', server.address]);
  try {
    await reg('w1');
    await cli.err.next(/subscribed to ServiceHealth\/web at index 0/);
    await cli.out.next(/EndOfSnapshot/);
    const i2 = (await reg('w2')).index;
    assert.equal(JSON.parse(await cli.out.next()).Index, String(i2));

    // Clean restart: streams end UNAVAILABLE, the port comes back with a fresh publisher.
    publisher.close();
    await server.close();
    await cli.err.next(/stream ended \(UNAVAILABLE/);
    await reg('other-change-w1'); // written while the server was away; also web, so after the restart…
    const i4 = (await reg('w1')).index;
    publisher = createPublisher({ catalog, logger: silent, snapshotCacheTtlMs: 10_000 });
    server = await startSubscribeServer(publisher, port);
    await cli.err.next(new RegExp(`subscribed to ServiceHealth/web at index ${i2}`));
    // …the server cannot prove nothing changed since i2 (it started after), so a new snapshot follows.
    assert.match(await cli.out.next(), /NewSnapshotToFollow/);
    await cli.out.next(/EndOfSnapshot/);

    // Now the CLI's index is the snapshot's; another restart with no web change in between resumes.
    publisher.close();
    await server.close();
    await cli.err.next(/stream ended \(UNAVAILABLE/);
    publisher = createPublisher({ catalog, logger: silent, snapshotCacheTtlMs: 10_000 });
    server = await startSubscribeServer(publisher, port);
    await cli.err.next(/subscribed to ServiceHealth\/web at index [1-9]/);
    const i5 = (await reg('w5')).index;
    const next = JSON.parse(await cli.out.next());
    assert.equal(next.Index, String(i5), 'the first line after the restart is the live event');
    assert.equal(next.ServiceHealth.CheckServiceNode.Service.ID, 'w5');
    assert.ok(i4 < i5);
    cli.child.kill('SIGINT');
    assert.equal((await cli.exited)[0], 0);
  } finally {
    if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
    publisher.close();
    await server.close();
    await catalog.close();
    await log.close();
  }
});
