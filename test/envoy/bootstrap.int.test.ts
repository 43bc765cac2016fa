// Every bootstrap the project ships passes Envoy's own check (`envoy --mode
// validate`): the examples, the compose variant, and every kind that
// `xdshub envoy bootstrap` prints. The examples are exactly what the CLI prints
// for the flags docs/envoy.md gives, so they cannot drift from it.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseBootstrapArgs } from '../../src/cli/envoy';
import { envoyBootstrap, HUB_RECONNECT_BACKOFF } from '../../src/cli/envoy-bootstrap';
import { envoyBinary, envoyVersion, validateBootstrap } from '../helpers/envoy';
import { REPO_ROOT } from '../helpers/hub';
import { envoyBinaries, validateWith } from './compat-envoy';

function xdshub(args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src/cli/main.ts'), ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
}

/** What `xdshub envoy bootstrap ARGS` prints, computed in-process (one real CLI run below checks they agree). */
function printed(args: string[]): Record<string, any> {
  return JSON.parse(JSON.stringify(envoyBootstrap(parseBootstrapArgs(args, {})))) as Record<string, any>;
}

/** The argv error the CLI would print (it exits 2 with it), or undefined. */
function refusal(args: string[]): string | undefined {
  try {
    envoyBootstrap(parseBootstrapArgs(args, {}));
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

function assertValid(bootstrap: unknown, what: string) {
  const { ok, output } = validateBootstrap(bootstrap);
  assert.ok(ok, `${what} fails envoy --mode validate:\n${output}`);
}

test('the pinned Envoy is installed and runs', (t) => {
  t.diagnostic(`envoy ${envoyVersion()} (${envoyBinary()})`);
  assert.match(envoyVersion(), /^1\.\d+\.\d+$/);
});

const EXAMPLES = [
  { file: 'examples/envoy-bootstrap.json', args: ['--node-id', 'envoy-1', '--cluster', 'ingress-gateway'] },
  {
    file: 'examples/envoy-bootstrap.compose.json',
    args: [
      '--node-id',
      'envoy-1',
      '--cluster',
      'ingress-gateway',
      '--grpc-addr',
      'fanout:8502',
      '--admin-bind',
      '0.0.0.0:19000',
    ],
  },
];

for (const { file, args } of EXAMPLES) {
  test(`${file} passes envoy --mode validate and is what \`xdshub envoy bootstrap ${args.join(' ')}\` prints`, () => {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    assertValid(text, file);
    assert.deepEqual(JSON.parse(text), printed(args));
  });
}

test('the real CLI prints the same bootstrap, and exits 2 naming a bad flag', () => {
  const { args } = EXAMPLES[1]!;
  const res = xdshub(['envoy', 'bootstrap', ...args]);
  assert.equal(res.status, 0, res.stderr);
  assert.deepEqual(JSON.parse(res.stdout), printed(args));
  const bad = xdshub(['envoy', 'bootstrap', '--node-id', 'n', '--transport', 'xml']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /transport: expected delta, sotw or rest/);
  assert.equal(xdshub(['envoy', 'frob']).status, 2);
});

test('the compose file mounts the compose bootstrap into the Envoy it runs', () => {
  const compose = readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
  assert.match(compose, /\.\/examples\/envoy-bootstrap\.compose\.json:\/etc\/envoy\/envoy\.json/);
  assert.match(compose, /"-c", "\/etc\/envoy\/envoy\.json"/);
});

const KINDS: { args: string[]; source: (b: any) => unknown }[] = [
  {
    args: ['--transport', 'delta'],
    source: (b) => b.dynamic_resources.ads_config.api_type === 'DELTA_GRPC' && b.dynamic_resources.cds_config.ads,
  },
  {
    args: ['--transport', 'sotw'],
    source: (b) => b.dynamic_resources.ads_config.api_type === 'GRPC' && b.dynamic_resources.lds_config.ads,
  },
  {
    args: ['--transport', 'delta', '--ads=false'],
    source: (b) =>
      !b.dynamic_resources.ads_config && b.dynamic_resources.cds_config.api_config_source.api_type === 'DELTA_GRPC',
  },
  {
    args: ['--transport', 'sotw', '--ads=false'],
    source: (b) =>
      !b.dynamic_resources.ads_config && b.dynamic_resources.lds_config.api_config_source.api_type === 'GRPC',
  },
  // A boolean flag's bare form, as serve's take it.
  { args: ['--ads', '--transport', 'sotw'], source: (b) => b.dynamic_resources.ads_config.api_type === 'GRPC' },
  { args: ['--transport', 'delta', '--ads'], source: (b) => b.dynamic_resources.ads_config.api_type === 'DELTA_GRPC' },
  { args: ['--transport', 'delta', '--ads', 'false'], source: (b) => !b.dynamic_resources.ads_config },
  {
    args: ['--transport', 'rest', '--http-addr', '10.1.2.3:8500', '--refresh-delay', '500ms'],
    source: (b) => {
      const src = b.dynamic_resources.cds_config.api_config_source;
      return (
        src.api_type === 'REST' &&
        src.refresh_delay === '0.500s' &&
        b.static_resources.clusters[0].load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address
          .port_value === 8500
      );
    },
  },
];

for (const { args, source } of KINDS) {
  test(`xdshub envoy bootstrap ${args.join(' ')} passes envoy --mode validate`, () => {
    const b = printed(['--node-id', 'n1', '--cluster', 'edge', '--admin-bind', '127.0.0.1:19001', ...args]);
    assert.ok(source(b), `config sources: ${JSON.stringify(b.dynamic_resources)}`);
    assert.deepEqual(b.node, { id: 'n1', cluster: 'edge', locality: { region: 'dc1', zone: '' } });
    assert.equal(b.admin.address.socket_address.port_value, 19001);
    assertValid(b, args.join(' '));
  });
}

test('every gRPC bootstrap caps the reconnect back-off at 1 s, and the pinned and the older Envoy both take it', () => {
  for (const args of [
    ['--transport', 'delta'],
    ['--transport', 'sotw'],
    ['--transport', 'delta', '--ads=false'],
    ['--transport', 'sotw', '--ads=false'],
  ]) {
    const b = printed(['--node-id', 'n1', ...args]);
    const d = b.dynamic_resources;
    const sources = [d.ads_config, d.cds_config.api_config_source, d.lds_config.api_config_source].filter(Boolean);
    assert.ok(sources.length > 0);
    for (const src of sources)
      assert.deepEqual(
        src.grpc_services[0].envoy_grpc.retry_policy,
        { retry_back_off: HUB_RECONNECT_BACKOFF },
        args.join(' '),
      );
    for (const { version, bin } of envoyBinaries()) {
      const { ok, output } = validateWith(bin, b);
      assert.ok(ok, `Envoy ${version} refuses ${args.join(' ')}:\n${output}`);
      // A misspelt field is refused by both: they know the real one, not merely ignore it.
      const typo = JSON.parse(JSON.stringify(b).replaceAll('"retry_policy"', '"retry_polixy"'));
      assert.equal(validateWith(bin, typo).ok, false, `Envoy ${version} accepts an unknown field`);
    }
  }
});

test('envoy --mode validate refuses a broken bootstrap (so the checks above can fail)', () => {
  const good = printed(['--node-id', 'n1']);
  const broken = structuredClone(good);
  broken.static_resources.clusters[0].connect_timeout = '1 second';
  assert.equal(validateBootstrap(broken).ok, false);
  const noCluster = structuredClone(good);
  noCluster.dynamic_resources.ads_config.grpc_services[0].envoy_grpc.cluster_name = 'nowhere';
  assert.equal(validateBootstrap(noCluster).ok, false);
});

test('xdshub envoy bootstrap: --node-id defaults node.cluster to itself; bad flags are refused naming them', () => {
  assert.equal(printed(['--node-id', 'edge-1']).node.cluster, 'edge-1');
  assert.equal(refusal(['--node-id', 'edge-1']), undefined);
  for (const [args, message] of [
    [['--cluster', 'x'], /node-id: required/],
    [['--node-id', 'n', '--transport', 'xml'], /transport: expected delta, sotw or rest/],
    [['--node-id', 'n', '--transport', 'rest', '--ads=true'], /transport: REST polling has no aggregated stream/],
    [['--node-id', 'n', '--admin-bind', 'localhost'], /admin-bind: expected host:port/],
    [['--node-id', 'n', '--ads', 'maybe'], /ads: expected true or false/],
    [['--node-id', 'n', '--no-such-flag'], /no-such-flag/],
  ] as const) {
    assert.match(refusal([...args]) ?? 'accepted', message, args.join(' '));
  }
});
