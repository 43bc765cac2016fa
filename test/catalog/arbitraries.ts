// fast-check generators of catalog commands over a tiny universe of names, so
// commands collide on the same nodes, services, checks and entries.
import fc from 'fast-check';
import type { CatalogReader } from '../../src/catalog/catalog';
import type { CheckInput, Command, ConfigEntryInput, ServiceInput, TxnOp } from '../../src/catalog/commands';
import type { ConfigEntryKind, HealthStatus } from '../../src/catalog/types';
import { checkInput, nodeInput, serviceInput } from './fixtures';

export const NODES = ['n1', 'n2', 'n3'];
export const SERVICE_IDS = ['s1', 's2', 's3'];
export const SERVICE_NAMES = ['web', 'api', 'Db'];
export const CHECK_IDS = ['c1', 'c2', 'c3'];
export const KINDS: ConfigEntryKind[] = ['service-resolver', 'mesh'];
export const ENTRY_NAMES = ['a', 'b'];

/**
 * Stands for "the object's current ModifyIndex (or refresh index)": random
 * indexes rarely match, so half the CAS ops and expiries name the current one;
 * `resolveCurrent` substitutes it against the state right before apply.
 */
export const CURRENT = -1;

const node = fc.constantFrom(...NODES);
/** Biased to c1, so updates and expiries often find the check registered. */
const checkId = fc.constantFrom('c1', 'c1', 'c1', ...CHECK_IDS);
const status = fc.constantFrom<HealthStatus>('passing', 'warning', 'critical');
const smallIndex = fc.oneof(fc.constant(CURRENT), fc.integer({ min: 0, max: 12 }));

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

const check = (nodeName: string, serviceIds: readonly string[] = SERVICE_IDS): fc.Arbitrary<CheckInput> =>
  fc
    .record({
      id: checkId,
      serviceId: fc.constantFrom('', '', ...serviceIds),
      status,
      ttl: fc.boolean(),
    })
    .map(({ id, serviceId, status: s, ttl }) =>
      checkInput(id, { Node: nodeName, ServiceID: serviceId, Status: s, Definition: ttl ? { TTL: '10s' } : {} }),
    );

const entry: fc.Arbitrary<ConfigEntryInput> = fc
  .record({ kind: fc.constantFrom(...KINDS), name: fc.constantFrom(...ENTRY_NAMES), v: fc.constantFrom(1, 2) })
  .map(({ kind, name, v }) => ({ Kind: kind, Name: name, Value: v }));

// Checks mostly name the service of the same command (or none), sometimes another: that one may be missing.
const register: fc.Arbitrary<Command> = fc
  .record({ n: node, svc: fc.option(service, { nil: undefined }), other: fc.constantFrom(...SERVICE_IDS) })
  .chain(({ n, svc, other }) =>
    fc.record({
      type: fc.constant('register' as const),
      node: fc.constantFrom('10.0.0.1', '10.0.0.2').map((a) => nodeInput(n, { Address: a })),
      service: fc.constant(svc),
      checks: fc.array(check(n, svc ? [svc.ID, svc.ID, other] : [other]), { maxLength: 2 }),
      skipNodeUpdate: fc.boolean(),
    }),
  );

const txnOp: fc.Arbitrary<TxnOp> = fc.oneof(
  node.map((n) => ({ op: 'node-set' as const, node: nodeInput(n) })),
  fc
    .record({ n: node, i: smallIndex })
    .map(({ n, i }) => ({ op: 'node-cas' as const, node: nodeInput(n, { Address: '10.1.1.1' }), index: i })),
  node.map((n) => ({ op: 'node-delete' as const, node: n })),
  fc.record({ n: node, i: smallIndex }).map(({ n, i }) => ({ op: 'node-delete-cas' as const, node: n, index: i })),
  fc.record({ n: node, s: service }).map(({ n, s }) => ({ op: 'service-set' as const, node: n, service: s })),
  fc
    .record({ n: node, s: service, i: smallIndex })
    .map(({ n, s, i }) => ({ op: 'service-cas' as const, node: n, service: s, index: i })),
  fc
    .record({ n: node, id: fc.constantFrom(...SERVICE_IDS) })
    .map(({ n, id }) => ({ op: 'service-delete' as const, node: n, serviceId: id })),
  fc.record({ n: node, id: fc.constantFrom(...SERVICE_IDS), i: smallIndex }).map(({ n, id, i }) => ({
    op: 'service-delete-cas' as const,
    node: n,
    serviceId: id,
    index: i,
  })),
  fc
    .record({ n: node, id: fc.constantFrom(...CHECK_IDS) })
    .map(({ n, id }) => ({ op: 'check-delete' as const, node: n, checkId: id })),
  node.chain((n) => check(n)).chain((c) => smallIndex.map((i) => ({ op: 'check-cas' as const, check: c, index: i }))),
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
    arbitrary: fc
      .record({
        n: node,
        s: fc.option(fc.constantFrom(...SERVICE_IDS), { nil: undefined }),
        c: fc.option(fc.constantFrom(...CHECK_IDS), { nil: undefined }),
      })
      .map(
        ({ n, s, c }): Command => ({
          type: 'deregister',
          node: n,
          ...(s ? { serviceId: s } : {}),
          ...(c ? { checkId: c } : {}),
        }),
      ),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ n: node, c: checkId, s: status, o: fc.constantFrom('', 'ok') })
      .map(({ n, c, s, o }): Command => ({ type: 'check-update', node: n, checkId: c, status: s, output: o })),
  },
  {
    weight: 1,
    arbitrary: fc.record({ n: node, c: checkId, i: smallIndex }).map(
      ({ n, c, i }): Command => ({
        type: 'check-ttl-expire',
        node: n,
        checkId: c,
        ifModifyIndex: i,
        output: 'TTL expired',
      }),
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ e: entry, cas: fc.option(smallIndex, { nil: undefined }) })
      .map(({ e, cas }): Command => ({ type: 'config-set', entry: e, ...(cas !== undefined ? { cas } : {}) })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        k: fc.constantFrom(...KINDS),
        n: fc.constantFrom(...ENTRY_NAMES),
        cas: fc.option(smallIndex, { nil: undefined }),
      })
      .map(
        ({ k, n, cas }): Command => ({
          type: 'config-delete',
          kind: k,
          name: n,
          ...(cas !== undefined ? { cas } : {}),
        }),
      ),
  },
  {
    weight: 2,
    arbitrary: fc.array(txnOp, { minLength: 1, maxLength: 3 }).map((ops): Command => ({ type: 'txn', ops })),
  },
);

export const commands = fc.array(command, { minLength: 10, maxLength: 50 });

/** Replaces CURRENT with the index the named object has right now in `r` (0 when absent). */
export function resolveCurrent(r: CatalogReader, cmd: Command): Command {
  const cur = (value: number, actual: number | undefined) => (value === CURRENT ? (actual ?? 0) : value);
  const nodeIx = (n: string) => r.node(n).value?.Node.ModifyIndex;
  const svcIx = (n: string, id: string) => r.node(n).value?.Services.find((s) => s.ID === id)?.ModifyIndex;
  const checkIx = (n: string, id: string) => r.nodeChecks(n).value.find((c) => c.CheckID === id)?.ModifyIndex;
  switch (cmd.type) {
    case 'check-ttl-expire':
      return { ...cmd, ifModifyIndex: cur(cmd.ifModifyIndex, r.ttlCheck(cmd.node, cmd.checkId)?.refreshIndex) };
    case 'config-set':
      return cmd.cas === undefined
        ? cmd
        : {
            ...cmd,
            cas: cur(
              cmd.cas,
              r.configEntry(cmd.entry.Kind as ConfigEntryKind, cmd.entry.Name as string).value?.ModifyIndex,
            ),
          };
    case 'config-delete':
      return cmd.cas === undefined
        ? cmd
        : { ...cmd, cas: cur(cmd.cas, r.configEntry(cmd.kind, cmd.name).value?.ModifyIndex) };
    case 'txn':
      return {
        ...cmd,
        ops: cmd.ops.map((op): TxnOp => {
          switch (op.op) {
            case 'node-cas':
              return { ...op, index: cur(op.index, nodeIx(op.node.Node)) };
            case 'node-delete-cas':
              return { ...op, index: cur(op.index, nodeIx(op.node)) };
            case 'service-cas':
              return { ...op, index: cur(op.index, svcIx(op.node, op.service.ID)) };
            case 'service-delete-cas':
              return { ...op, index: cur(op.index, svcIx(op.node, op.serviceId)) };
            case 'check-cas':
              return { ...op, index: cur(op.index, checkIx(op.check.Node, op.check.CheckID)) };
            case 'check-delete-cas':
              return { ...op, index: cur(op.index, checkIx(op.node, op.checkId)) };
            default:
              return op;
          }
        }),
      };
    default:
      return cmd;
  }
}
