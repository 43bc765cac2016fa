// HTTP face of the operator tools: history, diffs, rollouts, dry runs (as
// `?dry-run=true` on every write route, through the write hook, and as
// POST /v1/ops/dry-run for a change given as a request), and the dashboard.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Catalog } from '../catalog/catalog';
import { HubError, invalid, isHubError } from '../errors';
import { policy, routePolicies } from '../http/route-policy';
import { WriteAnswered, type WriteHook } from '../http/write';
import { tokenFromRequest } from '../request-token';
import type { XdsServer } from '../xds/transport/server';
import type { DryRunner } from './dry-run';
import { type History, recordJson } from './history';
import { targetNodes } from './nodes';
import type { OpsReads } from './reads';
import { parseRolloutSpec, RolloutRefused, type Rollouts } from './rollout';
import type { Shadow } from './shadow';
import { proxyStatus, type StatusTracker } from './status';

export interface OpsHttpDeps {
  catalog: Catalog;
  history: History;
  rollouts: Rollouts;
  reads: OpsReads;
  /** Last ACK per stream and type (proxy status). */
  tracker: StatusTracker;
  newShadow(): Shadow;
  xds(): XdsServer | undefined;
  uiDir: string;
}

const UI_FILES: Record<string, string> = {
  '': 'text/html; charset=utf-8',
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

/** The routes that take ?dry-run=true and X-Xdshub-Rollout: those whose policy says so (catalog and config writes). */
function dryRunRoutes(app: FastifyInstance): string[] {
  return routePolicies(app)
    .filter((p) => p.dryRun)
    .map((p) => p.route);
}

function flag(req: FastifyRequest, name: string): boolean {
  const v = (req.query as Record<string, unknown>)[name];
  if (v === undefined) return false;
  const text = String(Array.isArray(v) ? v.at(-1) : v);
  if (text === '' || text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw invalid(name, `expected true or false, got "${text}"`);
}

function routeOf(req: FastifyRequest): string {
  return `${req.method} ${req.routeOptions.url ?? ''}`;
}

function sendError(reply: { code(n: number): { send(b: unknown): unknown } }, err: unknown): unknown {
  if (isHubError(err)) return reply.code(err.httpStatus).send({ error: err.message, field: err.field ?? null });
  throw err;
}

export function registerOpsHttp(app: FastifyInstance, deps: OpsHttpDeps): void {
  registerNodeRoutes(app, deps);
  registerRolloutRoutes(app, deps.rollouts);
  registerDryRunRoute(app);
  registerUi(app, deps.uiDir);
}

/**
 * ?dry-run=true and X-Xdshub-Rollout on the write routes that take them: the
 * operator tools' write hook (an extension point the assembler installs).
 */
export function opsWriteHook(deps: Pick<OpsHttpDeps, 'history' | 'rollouts' | 'xds'>, dryRunner: DryRunner): WriteHook {
  return async (reply, command, submit) => {
    const req = reply.request;
    const app = reply.server;
    const dry = flag(req, 'dry-run');
    const rolloutText =
      (req.headers['x-xdshub-rollout'] as string | undefined) ??
      (req.query as Record<string, string | undefined>)['rollout'];
    if ((dry || rolloutText !== undefined) && req.routeOptions.config.dryRun !== true) {
      throw invalid(
        dry ? 'dry-run' : 'X-Xdshub-Rollout',
        `not taken by ${routeOf(req)} (only ${dryRunRoutes(app).join(', ')})`,
      );
    }
    if (dry) {
      throw new WriteAnswered(await dryRunner.run(command, targetNodes(deps.xds(), await deps.history.nodes())));
    }
    if (rolloutText === undefined) return submit();
    try {
      const { result, rollout } = await deps.rollouts.run(parseRolloutSpec(rolloutText), command, submit);
      reply.header('X-Xdshub-Rollout-Id', rollout.id);
      return result;
    } catch (err) {
      // Refused by Envoy's validation: the refusal names the rollout it recorded.
      if (err instanceof RolloutRefused) reply.header('X-Xdshub-Rollout-Id', err.rollout.id);
      throw err;
    }
  };
}

/** What the nodes hold and held: proxy status, history, the node list, diffs between indexes. */
function registerNodeRoutes(app: FastifyInstance, deps: OpsHttpDeps): void {
  const { history, reads } = deps;
  app.get('/v1/xds/proxy-status', policy.needs('operator', 'read'), async () =>
    proxyStatus({
      xds: deps.xds,
      provider: () => deps.rollouts.provider,
      tracker: deps.tracker,
      pinnedFor: (n) => deps.rollouts.pinnedFor(n),
    }),
  );

  app.get<{ Params: { node: string }; Querystring: { limit?: string } }>(
    '/v1/xds/history/:node',
    policy.needs('operator', 'read'),
    async (req, reply) => {
      const limit = req.query.limit === undefined ? undefined : Number(req.query.limit);
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
        return sendError(reply, invalid('limit', `expected a whole number ≥ 1, got "${req.query.limit}"`));
      const [records, nodes] = await Promise.all([history.of(req.params.node, limit), history.nodes()]);
      const known = nodes.find((n) => n.id === req.params.node);
      if (!known && records.length === 0)
        return sendError(
          reply,
          new HubError('NOT_FOUND', `no history for node "${req.params.node}"`, { field: 'node' }),
        );
      return { node: known ?? { id: req.params.node }, records: records.map(recordJson) };
    },
  );

  app.get('/v1/xds/nodes', policy.needs('operator', 'read'), async () => {
    const connected = new Set((deps.xds()?.streams() ?? []).flatMap((s) => (s.node && !s.isClosed ? [s.node.id] : [])));
    const nodes = await history.nodes();
    const last = await Promise.all(nodes.map((n) => history.of(n.id, 1)));
    return nodes
      .map((n, i) => ({
        ...n,
        connected: connected.has(n.id),
        lastPush: last[i]!.length ? recordJson(last[i]![0]!) : null,
      }))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
  });

  app.get<{ Params: { node: string }; Querystring: { from?: string; to?: string; cluster?: string } }>(
    '/v1/xds/diff/:node',
    policy.needs('operator', 'read'),
    async (req, reply) => {
      try {
        return await reads.diff(req.params.node, req.query.from ?? '', req.query.to ?? '', req.query.cluster);
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );
}

function registerRolloutRoutes(app: FastifyInstance, rollouts: Rollouts): void {
  app.get('/v1/xds/rollouts', policy.needs('operator', 'read'), async () => rollouts.list());
  app.get<{ Params: { id: string } }>(
    '/v1/xds/rollouts/:id',
    policy.needs('operator', 'read'),
    async (req, reply) =>
      rollouts.get(req.params.id) ?? sendError(reply, new HubError('NOT_FOUND', `no rollout "${req.params.id}"`)),
  );
  app.post<{ Params: { id: string } }>(
    '/v1/xds/rollouts/:id/rollback',
    policy.needs('operator', 'write'),
    async (req, reply) => {
      try {
        const r = await rollouts.rollback(req.params.id);
        if (r.rollbackIndex) reply.header('X-Consul-Index', r.rollbackIndex);
        return rollouts.get(r.id) ?? r;
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );
  app.post<{ Params: { id: string } }>(
    '/v1/xds/rollouts/:id/proceed',
    policy.needs('operator', 'write'),
    async (req, reply) => {
      try {
        const r = rollouts.proceed(req.params.id);
        return rollouts.get(r.id) ?? r;
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );
}

/**
 * A change given as the request it would be (`xdshub dry-run`, the dashboard): its dry run,
 * answered as the caller — the token it came with rides on the inner request, so the
 * write's own ACL check (and the prediction) sees the caller's rights.
 */
function registerDryRunRoute(app: FastifyInstance): void {
  app.post('/v1/ops/dry-run', policy.needs('operator', 'read'), async (req, reply) => {
    const body = req.body as { Method?: unknown; Path?: unknown; Body?: unknown } | null;
    const method = typeof body?.Method === 'string' ? body.Method.toUpperCase() : 'PUT';
    const path = typeof body?.Path === 'string' ? body.Path : '';
    const routes = dryRunRoutes(app);
    const route = routes.find((r) => {
      const [m, p] = r.split(' ');
      return m === method && new RegExp(`^${p!.replace(/:[a-z]+/g, '[^/?]+')}(\\?.*)?$`).test(path);
    });
    if (!route)
      return sendError(
        reply,
        invalid('Path', `expected one of ${routes.join(', ')}; got ${method} ${path || '(none)'}`),
      );
    const token = tokenFromRequest(req);
    const headers: Record<string, string> = {
      ...(token ? { 'x-consul-token': token } : {}),
      ...(body?.Body === undefined ? {} : { 'content-type': 'application/json' }),
    };
    const res = await app.inject({
      method: method as 'PUT',
      url: `${path}${path.includes('?') ? '&' : '?'}dry-run=true`,
      headers,
      ...(body?.Body === undefined ? {} : { payload: JSON.stringify(body.Body) }),
    });
    return reply
      .code(res.statusCode)
      .type(String(res.headers['content-type'] ?? 'application/json'))
      .send(res.body);
  });
}

function registerUi(app: FastifyInstance, uiDir: string): void {
  const ui = async (file: string, reply: FastifyReply) => {
    const type = UI_FILES[file];
    if (type === undefined) return reply.code(404).type('text/plain').send('not found');
    return reply.type(type).send(await readFile(join(uiDir, file || 'index.html')));
  };
  app.get('/ui', policy.public, (_req, reply) => reply.redirect('/ui/'));
  app.get('/ui/', policy.public, (_req, reply) => ui('', reply));
  app.get<{ Params: { file: string } }>('/ui/:file', policy.public, (req, reply) => ui(req.params.file, reply));
}
