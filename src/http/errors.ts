// One error handler for the app: HubError → its status from src/errors.ts,
// fastify's own errors (validation, body too large, bad JSON) → 4xx, anything
// else → 500 (logged). Bodies are plain text, as Consul's are.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isHubError } from '../errors';
import { sendJson, sendText } from './reply';
import { WriteAnswered } from './write';

/** Carries the HubError code (src/errors.ts) of every error answer. */
export const ERROR_CODE_HEADER = 'x-xdshub-error';

/** "/Service/Port" → "Service.Port"; "/Checks/0/TTL" → "Checks[0].TTL". */
export function fieldFromInstancePath(path: string): string {
  return path
    .split('/')
    .filter((p) => p !== '')
    .map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`))
    .join('');
}

function validationMessage(err: FastifyError): string {
  const first = err.validation?.[0];
  if (!first) return err.message;
  const missing = (first.params as { missingProperty?: string } | undefined)?.missingProperty;
  const base = fieldFromInstancePath(first.instancePath);
  const field = missing ? (base ? `${base}.${missing}` : missing) : base || err.validationContext || 'body';
  return missing ? `${field}: is required` : `${field}: ${first.message ?? 'is invalid'}`;
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    if ((err as unknown) instanceof WriteAnswered) return sendJson(reply, (err as unknown as WriteAnswered).body);
    if (isHubError(err)) {
      if (err.httpStatus >= 500) req.log.warn({ reqId: req.id, err }, 'request failed');
      // The status alone does not say what a client may do next: a 503 LOG_UNAVAILABLE
      // write was not applied (retry), a 503 LOG_OUTCOME_UNKNOWN one may have been.
      reply.header(ERROR_CODE_HEADER, err.code);
      return sendText(reply, err.httpStatus, err.message);
    }
    if (err.validation) return sendText(reply, 400, validationMessage(err));
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) return sendText(reply, status, err.message);
    req.log.error({ reqId: req.id, err }, 'unexpected error');
    return sendText(reply, 500, err.message || 'internal error');
  });
  app.setNotFoundHandler((req, reply) => sendText(reply, 404, `no route for ${req.method} ${req.url.split('?')[0]}`));
}
