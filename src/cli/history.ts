// `xdshub history NODE`: every push the hub recorded for a node (time, hub,
// index, type, what it carried) and the node's answer, oldest first.
import * as cli from './http-client';

const USAGE = `usage: xdshub history NODE [--limit N] [-o table|json|yaml]
  the node's pushes and its ACK/NACK to each, oldest first (the newest N with --limit)
${cli.COMMON_FLAGS_USAGE}`;

interface HistoryAnswer {
  node: { id: string; cluster?: string; userAgent?: string };
  records: {
    seq: number;
    hub: string;
    at: string;
    index: string;
    type: string;
    variant: string;
    version: string;
    resources: Record<string, string | null>;
    answer: { ack: boolean; at: string; code?: number; message?: string } | null;
  }[];
}

export function formatHistory(h: HistoryAnswer): string {
  const rows = h.records.map((r) => {
    const names = Object.entries(r.resources);
    const removed = names.filter(([, v]) => v === null).length;
    const what = `${names.length - removed} resource(s)${removed ? `, ${removed} removed` : ''}`;
    const answer = r.answer === null ? 'pending' : r.answer.ack ? 'ACK' : `NACK: ${r.answer.message ?? ''}`;
    return [String(r.seq), r.at, r.hub, r.index, r.type, what, answer];
  });
  const cluster = h.node.cluster ? ` (cluster ${h.node.cluster})` : '';
  const head = `history of ${h.node.id}${cluster}: ${h.records.length} record(s)\n`;
  return head + (rows.length ? cli.table(['SEQ', 'AT', 'HUB', 'INDEX', 'TYPE', 'SENT', 'ANSWER'], rows) : '');
}

export function run(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  return cli.runCommand('history', USAGE, async () => {
    const { values, positionals, hub } = cli.parseCommand(argv, env, {
      limit: { type: 'string' },
      output: { type: 'string', short: 'o' },
    });
    if (cli.helpAsked(values, USAGE)) return cli.EXIT.ok;
    const format = cli.outputFormat(values['output'] as string | undefined);
    if (positionals.length !== 1) throw new cli.UsageError('expected one NODE');
    const limit = values['limit'] === undefined ? '' : `?limit=${encodeURIComponent(String(values['limit']))}`;
    const answer = await hub.request<HistoryAnswer>(
      'GET',
      `/v1/xds/history/${encodeURIComponent(positionals[0]!)}${limit}`,
    );
    process.stdout.write(cli.render(format, answer, () => formatHistory(answer)));
    return cli.EXIT.ok;
  });
}
