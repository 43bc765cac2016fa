// `xdshub proxy-status`: every connected xDS stream and, per type, whether the
// node holds what the hub serves it (synced), is behind (stale) or refused it
// (NACKed), with the version, the index its last ACK stood for and how long ago
// that ACK came — and which nodes a rollout holds on its pinned state.
import type { ProxyStatus, TypeStatus } from '../ops/status';
import * as cli from './http-client';

const USAGE = `usage: xdshub proxy-status [-o table|json|yaml] [NODE]
  every connected node (or NODE): per type synced / stale / NACKED, the index of
  its last ACK and its cli.age, and the rollout that holds it (if any)
${cli.COMMON_FLAGS_USAGE}`;

const TYPES = ['CDS', 'EDS', 'LDS', 'RDS', 'SDS'];

function cell(t: TypeStatus | undefined, now: number): string {
  if (!t) return '-';
  const state = t.state === 'synced' ? 'SYNCED' : t.state === 'stale' ? 'STALE' : 'NACKED';
  const at = t.lastAckAt ? ` ${cli.age(Date.parse(t.lastAckAt), now)}` : '';
  return `${state}${t.index ? ` (i${t.index}${at})` : ''}`;
}

export function formatStatus(rows: readonly ProxyStatus[], now = Date.now()): string {
  if (rows.length === 0) return 'no connected xDS nodes\n';
  const body = rows.map((r) => [
    r.node.id,
    r.node.cluster || '-',
    `${r.transport}/${r.variant}`,
    ...TYPES.map((t) =>
      cell(
        r.types.find((x) => x.type === t),
        now,
      ),
    ),
    r.pinned ? `${r.pinned.rollout} @${r.pinned.index}` : '-',
  ]);
  const nacks = rows.flatMap((r) =>
    r.types.filter((t) => t.lastNack).map((t) => `  ${r.node.id} ${t.type}: ${t.lastNack!.message}`),
  );
  return (
    cli.table(['NODE', 'CLUSTER', 'STREAM', ...TYPES, 'HELD BY'], body) +
    (nacks.length ? `NACKs:\n${nacks.join('\n')}\n` : '')
  );
}

export function run(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  return cli.runCommand('proxy-status', USAGE, async () => {
    const { values, positionals, hub } = cli.parseCommand(argv, env, { output: { type: 'string', short: 'o' } });
    if (cli.helpAsked(values, USAGE)) return cli.EXIT.ok;
    const format = cli.outputFormat(values['output'] as string | undefined);
    let rows = await hub.request<ProxyStatus[]>('GET', '/v1/xds/proxy-status');
    if (positionals.length > 0) {
      rows = rows.filter((r) => positionals.includes(r.node.id));
      if (rows.length === 0) {
        process.stderr.write(`xdshub proxy-status: ${positionals.join(', ')}: not connected to ${hub.address}\n`);
        return cli.EXIT.failed;
      }
    }
    process.stdout.write(cli.render(format, rows, () => formatStatus(rows)));
    return cli.EXIT.ok;
  });
}
