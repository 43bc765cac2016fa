// Small reply helpers: Consul answers JSON values (including bare `true`,
// `false` and `null`) and plain-text errors.
import type { FastifyReply } from 'fastify';

export function sendJson(reply: FastifyReply, value: unknown, status = 200): FastifyReply {
  return reply
    .code(status)
    .type('application/json')
    .send(JSON.stringify(value ?? null));
}

export function sendText(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply.code(status).type('text/plain; charset=utf-8').send(text);
}
