// /v1/session/*: Consul's sessions (docs/kv.md, "Sessions"). Every change goes
// through the log, renewals included, so every hub knows each session's TTL
// clock; reads are blocking queries filtered by session:read on the node.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { canReadSession } from '../../acl/catalog-rules';
import type { Indexed } from '../../catalog/catalog';
import type { Command } from '../../catalog/commands';
import type { Session } from '../../catalog/kv-types';
import { HubError } from '../../errors';
import { filterRead } from '../acl';
import { blockingRead } from '../blocking';
import type { HttpContext } from '../context';
import { sendJson } from '../reply';
import { policy } from '../route-policy';
import { sessionInput } from '../translate/kv';
import { authorizeWrite, submitOrThrow } from '../write';

type IdParams = { Params: { id: string } };
type NodeParams = { Params: { node: string } };

export function sessionRoutes(app: FastifyInstance, ctx: HttpContext): void {
  const agentNode = ctx.identity.nodeName;

  async function readSessions(req: FastifyRequest, reply: FastifyReply, read: () => Indexed<Session[]>) {
    const sessions = await blockingRead(ctx, req, reply, read);
    return sendJson(reply, filterRead(ctx.acl, req, reply, sessions, canReadSession));
  }

  async function write(req: FastifyRequest, reply: FastifyReply, command: Command) {
    authorizeWrite(ctx, req, command);
    return submitOrThrow(ctx, reply, command);
  }

  app.put('/v1/session/create', policy.checked, async (req, reply) => {
    const session = sessionInput(req.body, randomUUID(), agentNode);
    await write(req, reply, {
      type: 'session-create',
      session,
      now: Date.now(),
      agentNode: session.Node === agentNode,
    });
    return sendJson(reply, { ID: session.ID });
  });

  app.put<IdParams>('/v1/session/destroy/:id', policy.checked, async (req, reply) => {
    await write(req, reply, { type: 'session-destroy', id: req.params.id, now: Date.now() });
    return sendJson(reply, true);
  });

  app.put<IdParams>('/v1/session/renew/:id', policy.checked, async (req, reply) => {
    const { id } = req.params;
    if (!ctx.catalog.session(id).value) throw new HubError('NOT_FOUND', `Session id '${id}' not found`);
    await write(req, reply, { type: 'session-renew', id, now: Date.now() });
    const session = ctx.catalog.session(id).value;
    if (!session) throw new HubError('NOT_FOUND', `Session id '${id}' not found`);
    return sendJson(reply, filterRead(ctx.acl, req, reply, [session], canReadSession));
  });

  app.get<IdParams>('/v1/session/info/:id', policy.checked, (req, reply) => {
    const { id } = req.params;
    return readSessions(req, reply, () => {
      const one = ctx.catalog.session(id);
      return { ...one, value: one.value ? [one.value] : [] };
    });
  });

  app.get<NodeParams>('/v1/session/node/:node', policy.checked, (req, reply) =>
    readSessions(req, reply, () => ctx.catalog.nodeSessions(req.params.node)),
  );

  app.get('/v1/session/list', policy.checked, (req, reply) => readSessions(req, reply, () => ctx.catalog.sessions()));
}
