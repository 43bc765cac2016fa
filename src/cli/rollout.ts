// `xdshub rollout list|show ID|proceed ID|rollback ID`: staged rollouts — their
// state, canaries, the index the held nodes are pinned at and which connected
// nodes are held there now — and the two ways to end one.
import type { RolloutView } from '../ops/rollout';
import * as cli from './http-client';

const USAGE = `usage: xdshub rollout list | show ID | proceed ID | rollback ID   [-o table|json|yaml]
  list       the last 50 rollouts, newest first
  show ID    one rollout: state, reason, canaries, pinned index and the nodes held on it
  proceed ID release the hold and keep the change (needs operator:write)
  rollback ID write the inverse change, then release the hold (needs operator:write)
${cli.COMMON_FLAGS_USAGE}`;

function change(r: RolloutView): string {
  const c = r.command as {
    type: string;
    entry?: { Kind?: string; Name?: string };
    kind?: string;
    name?: string;
    node?: unknown;
    service?: { Service?: string; ID?: string };
    serviceId?: string;
  };
  const node = typeof c.node === 'string' ? c.node : (c.node as { Node?: string } | undefined)?.Node;
  const what = c.entry
    ? `${c.entry.Kind}/${c.entry.Name}`
    : c.kind && c.name
      ? `${c.kind}/${c.name}`
      : c.service
        ? `${c.service.ID ?? c.service.Service} on ${node}`
        : c.serviceId
          ? `${c.serviceId} on ${node}`
          : (node ?? '');
  return what ? `${c.type} ${what}` : c.type;
}

function pinned(r: RolloutView): string {
  if (r.held.length === 0)
    return r.state === 'canary' || r.state === 'held' ? `@${r.pinnedIndex} (no node held now)` : '-';
  return `@${r.pinnedIndex}: ${r.held.length} node(s)`;
}

export function formatList(list: readonly RolloutView[]): string {
  if (list.length === 0) return 'no rollouts\n';
  return cli.table(
    ['ID', 'STATE', 'CHANGE', 'INDEX', 'CANARIES', 'PINNED', 'REASON'],
    list.map((r) => [r.id, r.state, change(r), r.index ?? '-', r.canaries.join(',') || '-', pinned(r), r.reason ?? '']),
  );
}

export function formatOne(r: RolloutView): string {
  const lines = [
    `rollout ${r.id}: ${r.state}${r.reason ? ` — ${r.reason}` : ''}`,
    `  change:    ${change(r)} at index ${r.index ?? '(not written)'}` +
      (r.rollbackIndex ? `, rolled back at ${r.rollbackIndex}` : ''),
    `  window:    ${r.startedAt} → ${r.endsAt}`,
    `  canaries:  ${r.canaries.join(', ') || '(none)'}`,
    `  pinned at: index ${r.pinnedIndex}; held now: ${r.held.join(', ') || '(none)'}`,
  ];
  return `${lines.join('\n')}\n`;
}

const ACTIONS = ['list', 'show', 'proceed', 'rollback'];

export function run(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  return cli.runCommand('rollout', USAGE, async () => {
    const { values, positionals, hub } = cli.parseCommand(argv, env, { output: { type: 'string', short: 'o' } });
    if (cli.helpAsked(values, USAGE)) return cli.EXIT.ok;
    const format = cli.outputFormat(values['output'] as string | undefined);
    const [action, id, ...extra] = positionals;
    if (!action || !ACTIONS.includes(action))
      throw new cli.UsageError(`expected one of ${ACTIONS.join(', ')}${action ? `, got "${action}"` : ''}`);
    if (action === 'list') {
      if (id !== undefined) throw new cli.UsageError('list takes no ID');
      const list = await hub.request<RolloutView[]>('GET', '/v1/xds/rollouts');
      process.stdout.write(cli.render(format, list, () => formatList(list)));
      return cli.EXIT.ok;
    }
    if (id === undefined || extra.length > 0) throw new cli.UsageError(`${action} takes one rollout ID`);
    const path = `/v1/xds/rollouts/${encodeURIComponent(id)}`;
    const r = await hub.request<RolloutView>(
      action === 'show' ? 'GET' : 'POST',
      action === 'show' ? path : `${path}/${action}`,
    );
    process.stdout.write(cli.render(format, r, () => formatOne(r)));
    return cli.EXIT.ok;
  });
}
