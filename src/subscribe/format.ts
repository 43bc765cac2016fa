// Human-readable rendering of decoded Events (as the CLI decodes them: PascalCase,
// defaults left out) for `xdshub subscribe --format pretty`.
type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' ? (v as Obj) : {});
const str = (v: unknown, fallback = ''): string =>
  typeof v === 'string' || typeof v === 'number' ? String(v) : fallback;

function describePayload(event: Obj): string {
  if (event.EndOfSnapshot === true) return 'end of snapshot';
  if (event.NewSnapshotToFollow === true) return 'new snapshot to follow (reset the view)';
  if (event.ServiceHealth !== undefined) {
    const u = obj(event.ServiceHealth);
    const csn = obj(u.CheckServiceNode);
    const node = obj(csn.Node);
    const svc = obj(csn.Service);
    const checks = Array.isArray(csn.Checks) ? (csn.Checks as Obj[]) : [];
    const worst = checks.map((c) => str(c.Status)).sort((a, b) => rank(b) - rank(a))[0] ?? 'no checks';
    const addr = str(svc.Address) || str(node.Address);
    return `${str(u.Op, 'Register')} ${str(svc.Service)}/${str(svc.ID)} on ${str(node.Node)} ${addr}:${str(svc.Port, '0')} ${worst}`;
  }
  if (event.ConfigEntry !== undefined) {
    const u = obj(event.ConfigEntry);
    const e = obj(u.ConfigEntry);
    return `${str(u.Op, 'Upsert')} ${str(e.Kind, 'KindUnknown').replace(/^Kind/, '')} ${str(e.Name)}`;
  }
  if (event.Service !== undefined) {
    const u = obj(event.Service);
    return `${str(u.Op, 'Register')} service ${str(u.Name)}`;
  }
  return JSON.stringify(event);
}

function rank(status: string): number {
  return ({ passing: 0, warning: 1, maintenance: 2, critical: 3 } as Record<string, number>)[status] ?? 0;
}

export function formatPretty(event: Obj): string {
  const index = str(event.Index, '0');
  if (event.EventBatch !== undefined) {
    const inner = (obj(event.EventBatch).Events as Obj[] | undefined) ?? [];
    return `#${index} batch of ${inner.length}\n${inner.map((e) => `    ${describePayload(e)}\n`).join('')}`;
  }
  return `#${index} ${describePayload(event)}\n`;
}
