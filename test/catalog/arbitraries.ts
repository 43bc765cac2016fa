// fast-check generators of catalog commands over a tiny universe of names, so
// commands collide on the same nodes, services, checks and entries.
import fc from 'fast-check';
import type { CheckInput, Command, ConfigEntryInput, ServiceInput, TxnOp } from '../../src/catalog/commands';
import type { ConfigEntryKind, HealthStatus } from '../../src/catalog/types';
import { checkInput, nodeInput, serviceInput } from './fixtures';

export const NODES = ['n1', 'n2', 'n3'];
export const SERVICE_IDS = ['s1', 's2', 's3'];
export const SERVICE_NAMES = ['web', 'api', 'Db'];
export const CHECK_IDS = ['c1', 'c2', 'c3'];
export const KINDS: ConfigEntryKind[] = ['service-resolver', 'mesh'];
export const ENTRY_NAMES = ['a', 'b'];

const node = fc.constantFrom(...NODES);
const status = fc.constantFrom<HealthStatus>('passing', 'warning', 'critical');
const smallIndex = fc.integer({ min: 0, max: 12 });

const service: fc.Arbitrary<ServiceInput> = fc
  .record({
    id: fc.constantFrom(...SERVICE_IDS),
    name: fc.constantFrom(...SERVICE_NAMES),
    port: fc.constantFrom(80, 81),
    tags: fc.subarray(['x', 'y']),
    flavour: fc.constantFrom('plain', 'plain', 'native', 'proxy'),
    dest: fc.constantFrom(...SERVICE_NAMES),
  })
  .map(({ id, name, port, tags, flavour, dest }) =>
    serviceInput(id, name, {
      Port: port,
      Tags: tags,
      ...(flavour === 'native' ? { Connect: { Native: true } } : {}),
      ...(flavour === 'proxy' ? { Kind: 'connect-proxy', Proxy: { DestinationServiceName: dest } } : {}),
    }),
  );

const check = (nodeName: string): fc.Arbitrary<CheckInput> =>
  fc
    .record({
      id: fc.constantFrom(...CHECK_IDS),
      serviceId: fc.constantFrom('', '', ...SERVICE_IDS),
      status,
      ttl: fc.boolean(),
    })
    .map(({ id, serviceId, status: s, ttl }) =>
      checkInput(id, { Node: nodeName, ServiceID: serviceId, Status: s, Definition: ttl ? { TTL: '10s' } : {} }),
    );

const entry: fc.Arbitrary<ConfigEntryInput> = fc
  .record({ kind: fc.constantFrom(...KINDS), name: fc.constantFrom(...ENTRY_NAMES), v: fc.constantFrom(1, 2) })
  .map(({ kind, name, v }) => ({ Kind: kind, Name: name, Value: v }));

const register: fc.Arbitrary<Command> = node.chain((n) =>
  fc.record({
    type: fc.constant('register' as const),
    node: fc.constantFrom('10.0.0.1', '10.0.0.2').map((a) => nodeInput(n, { Address: a })),
    service: fc.option(service, { nil: undefined }),
    checks: fc.array(check(n), { maxLength: 2 }),
    skipNodeUpdate: fc.boolean(),
  }),
);

const txnOp: fc.Arbitrary<TxnOp> = fc.oneof(
  node.map((n) => ({ op: 'node-set' as const, node: nodeInput(n) })),
  fc.record({ n: node, i: smallIndex }).map(({ n, i }) => ({ op: 'node-cas' as const, node: nodeInput(n, { Address: '10.1.1.1' }), index: i })),
  node.map((n) => ({ op: 'node-delete' as const, node: n })),
  fc.record({ n: node, i: smallIndex }).map(({ n, i }) => ({ op: 'node-delete-cas' as const, node: n, index: i })),
  fc.record({ n: node, s: service }).map(({ n, s }) => ({ op: 'service-set' as const, node: n, service: s })),
  fc.record({ n: node, s: service, i: smallIndex }).map(({ n, s, i }) => ({ op: 'service-cas' as const, node: n, service: s, index: i })),
  fc.record({ n: node, id: fc.constantFrom(...SERVICE_IDS) }).map(({ n, id }) => ({ op: 'service-delete' as const, node: n, serviceId: id })),
  node.chain((n) => check(n)).map((c) => ({ op: 'check-set' as const, check: c })),
  fc.record({ n: node, id: fc.constantFrom(...CHECK_IDS), i: smallIndex }).map(({ n, id, i }) => ({
    op: 'check-delete-cas' as const,
    node: n,
    checkId: id,
    index: i,
  })),
);

export const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 5, arbitrary: register },
  {
    weight: 2,
    arbitrary: fc.record({
      n: node,
      s: fc.option(fc.constantFrom(...SERVICE_IDS), { nil: undefined }),
      c: fc.option(fc.constantFrom(...CHECK_IDS), { nil: undefined }),
    }).map(({ n, s, c }): Command => ({ type: 'deregister', node: n, ...(s ? { serviceId: s } : {}), ...(c ? { checkId: c } : {}) })),
  },
  {
    weight: 2,
    arbitrary: fc.record({ n: node, c: fc.constantFrom(...CHECK_IDS), s: status, o: fc.constantFrom('', 'ok') }).map(
      ({ n, c, s, o }): Command => ({ type: 'check-update', node: n, checkId: c, status: s, output: o, now: 0 }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({ n: node, c: fc.constantFrom(...CHECK_IDS), i: smallIndex }).map(
      ({ n, c, i }): Command => ({ type: 'check-ttl-expire', node: n, checkId: c, ifModifyIndex: i, output: 'TTL expired' }),
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({ e: entry, cas: fc.option(smallIndex, { nil: undefined }) }).map(
      ({ e, cas }): Command => ({ type: 'config-set', entry: e, ...(cas !== undefined ? { cas } : {}) }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({ k: fc.constantFrom(...KINDS), n: fc.constantFrom(...ENTRY_NAMES), cas: fc.option(smallIndex, { nil: undefined }) }).map(
      ({ k, n, cas }): Command => ({ type: 'config-delete', kind: k, name: n, ...(cas !== undefined ? { cas } : {}) }),
    ),
  },
  { weight: 2, arbitrary: fc.array(txnOp, { minLength: 1, maxLength: 4 }).map((ops): Command => ({ type: 'txn', ops })) },
);

export const commands = fc.array(command, { minLength: 1, maxLength: 40 });
