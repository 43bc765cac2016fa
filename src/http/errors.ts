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
  app.setNotFoundHandler((req, reply) => unrouted(app, req, reply));
}

const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'HEAD', 'PATCH'] as const;

/**
 * A request no route takes. Never a look-alike of "not found": a client reading
 * a 404 from /v1/kv/x would take the key for absent. A path served under
 * other methods is 405 (Consul's text); any other /v1/ path is 501 naming the
 * endpoint; outside the API, a 404 that says it is no page of the hub.
 * app.ts does not parse the body of such a request.
 */
function unrouted(app: FastifyInstance, req: FastifyRequest, reply: FastifyReply) {
  const path = req.url.split('?')[0] ?? '';
  const allowed = METHODS.filter((m) => m !== req.method && app.findRoute({ method: m, url: path }) !== null);
  if (allowed.length > 0 && !(allowed.length === 1 && allowed[0] === 'HEAD')) {
    reply.header('Allow', allowed.join(', '));
    reply.header(ERROR_CODE_HEADER, 'METHOD_NOT_ALLOWED');
    return sendText(reply, 405, `method ${req.method} not allowed`);
  }
  if (path.startsWith('/v1/')) {
    reply.header(ERROR_CODE_HEADER, 'NOT_IMPLEMENTED');
    const what = 'this endpoint is not served by this hub (docs/http-api.md lists those it serves)';
    return sendText(reply, 501, `${req.method} ${path}: ${what}`);
  }
  reply.header(ERROR_CODE_HEADER, 'NOT_FOUND');
  return sendText(reply, 404, `${req.method} ${path}: no page or endpoint of this hub`);
}
