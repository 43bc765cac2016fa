// The operator commands' shared flags (src/cli/http-client.ts): the consul
// CLI's one-dash long flags, its address forms, and the hub's refusals as
// messages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hubAddress, normalizeFlags, parseCommand, UsageError } from '../../src/cli/http-client';

test('one-dash long flags read as two; one-letter flags, "-" and what follows "--" are left alone', () => {
  assert.deepEqual(normalizeFlags(['-http-addr', 'h:1', '-token=t', '-o', 'json', '-', '--', '-x-y']), [
    '--http-addr',
    'h:1',
    '--token=t',
    '-o',
    'json',
    '-',
    '--',
    '-x-y',
  ]);
});

test('the address: flag, then CONSUL_HTTP_ADDR (host:port or URL; CONSUL_HTTP_SSL), then the default', () => {
  assert.equal(hubAddress(undefined, {}), 'http://127.0.0.1:8500');
  assert.equal(hubAddress(undefined, { CONSUL_HTTP_ADDR: '10.0.0.1:8500' }), 'http://10.0.0.1:8500');
  assert.equal(
    hubAddress(undefined, { CONSUL_HTTP_ADDR: '10.0.0.1:8501', CONSUL_HTTP_SSL: 'true' }),
    'https://10.0.0.1:8501',
  );
  assert.equal(hubAddress('http://a:1/', { CONSUL_HTTP_ADDR: 'b:2' }), 'http://a:1');
});

test('the token: -token wins over CONSUL_HTTP_TOKEN; an unknown flag is a usage error', async () => {
  const seen: string[] = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = (async (_url: string, init: { headers: Record<string, string> }) => {
    seen.push(init.headers['x-consul-token'] ?? '(none)');
    return new Response('[]', { status: 200 });
  }) as unknown as typeof fetch;
  try {
    const env = { CONSUL_HTTP_TOKEN: 'from-env' };
    await parseCommand(['-token', 'from-flag'], env, {}).hub.request('GET', '/x');
    await parseCommand([], env, {}).hub.request('GET', '/x');
    await parseCommand([], {}, {}).hub.request('GET', '/x');
  } finally {
    globalThis.fetch = realFetch;
  }
  assert.deepEqual(seen, ['from-flag', 'from-env', '(none)']);
  assert.throws(() => parseCommand(['--nope'], {}, {}), UsageError);
});
