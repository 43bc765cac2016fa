// The Consul-compatible HTTP API as a fastify app. build(deps) creates it;
// the hub (or a test) decides whether to listen or to use app.inject().
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { createAclResolver } from '../acl/resolver';
import { installAclGate } from './acl';
import { parseJsonBody } from './body';
import type { HttpContext, HttpDeps } from './context';
import { installErrorHandler } from './errors';
import { installLimits } from './limits';
import { aclRoutes } from './routes/acl';
import { agentRoutes } from './routes/agent';
import { catalogRoutes } from './routes/catalog';
import { configRoutes } from './routes/config-entries';
import { connectCaRoutes } from './routes/connect-ca';
import { healthRoutes } from './routes/health';
import { intentionRoutes } from './routes/intentions';
import { kvRoutes } from './routes/kv';
import { metricsRoutes } from './routes/metrics';
import { sessionRoutes } from './routes/session';
import { statusRoutes } from './routes/status';
import { txnRoutes } from './routes/txn';
import { agentIdentity } from './translate/agent';

export type { HttpDeps } from './context';

export function buildHttpApp(deps: HttpDeps): FastifyInstance {
  const app = Fastify({
    loggerInstance: deps.logger.child({ module: 'http' }) as FastifyBaseLogger,
    // One log line per request is too much at thousands of writes/s; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    // No child logger per request (a pino child costs ~1 µs, ~0.7 % of a
    // registration's CPU): the only request logs are the error handler's, which
    // name the request id themselves.
    childLoggerFactory: (logger) => logger,
    return503OnClosing: true,
    bodyLimit: deps.config.limits.httpMaxBodyBytes,
    ...(deps.https ? { https: deps.https } : {}),
  }) as unknown as FastifyInstance;
  const acl = deps.acl ?? {
    resolver: createAclResolver(deps.catalog, {
      enabled: false,
      defaultPolicy: 'allow',
      datacenter: deps.config.datacenter,
    }),
    certToken: false,
  };
  const ctx: HttpContext = { ...deps, acl, identity: agentIdentity(deps.config), waits: new Set() };
  deps.metrics.setBlockingSource(() => ctx.waits.size);

  // Consul reads every body as JSON whatever the Content-Type says (curl -d
  // sends x-www-form-urlencoded), and an empty body is no body. A request no
  // route takes is answered for its endpoint, whatever its body holds.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (req, raw, done) => {
    if (req.routeOptions.url === undefined) return done(null, undefined);
    try {
      done(null, parseJsonBody(raw as Buffer));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  installErrorHandler(app);
  app.decorate('xdshubAcl', acl);
  installAclGate(app, acl);
  installLimits(app, ctx);

  // Set once close() starts: answers finished from then on end their connection,
  // so a keep-alive client cannot hold the shutdown open for fastify's 72 s
  // keep-alive timeout (the server closes only idle connections on its own).
  let closing = false;

  // Callback-style hooks: they run on every request, and skip a promise each.
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    if (!reply.hasHeader('X-Consul-Index')) reply.header('X-Consul-Index', String(deps.catalog.lastIndex()));
    reply.header('X-Consul-KnownLeader', String(deps.hasLeader?.() ?? true));
    reply.header('X-Consul-LastContact', '0');
    done(null, payload);
  });

  app.addHook('onResponse', (req, reply, done) => {
    deps.metrics.httpRequests.inc({
      method: req.method,
      route: req.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    });
    done();
  });

  // Blocking queries answer with their current data instead of holding shutdown.
  app.addHook('preClose', async () => {
    closing = true;
    for (const controller of ctx.waits) controller.abort();
  });

  catalogRoutes(app, ctx);
  healthRoutes(app, ctx);
  agentRoutes(app, ctx);
  configRoutes(app, ctx);
  txnRoutes(app, ctx);
  kvRoutes(app, ctx);
  sessionRoutes(app, ctx);
  statusRoutes(app, ctx);
  metricsRoutes(app, ctx);
  aclRoutes(app, ctx);
  intentionRoutes(app, ctx);
  if (deps.connect) connectCaRoutes(app, ctx, deps.connect);
  return app;
}
