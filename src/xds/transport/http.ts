// HTTP side of xDS: REST-JSON fetch (POST /v3/discovery:<type>, proto3 JSON in
// and out) and the admin views (GET /v1/xds/clients, GET /v1/xds/config/:node).
// Errors are HubErrors, thrown to the app's one error handler: the same status
// table and the same body (plain text, "field: reason") as every other route.
import type { FastifyInstance, RouteShorthandOptions } from 'fastify';
import { HubError } from '../../errors';
import { tokenFromRequest } from '../../request-token';
import { lookupType } from './envoy-proto';
import { bytesToJson, jsonToBytes } from './proto-json';
import { RESOURCE_TYPES, Secrets } from './resource-types';
import type { XdsServer } from './server';
import { decodeSotwRequest } from './wire';

export interface XdsHttpDeps {
  xds: XdsServer;
  /**
   * Route options the app governs these routes by (its ACL rules): REST
   * discovery, where the node's token decides what it gets as on gRPC, and the
   * admin views. The transport knows nothing of how they are enforced.
   */
  routes: { discovery: RouteShorthandOptions; admin: RouteShorthandOptions };
  /** `GET /v1/xds/config/:node?index=N`: what the node was due at log index N, rebuilt from the log (src/ops/replay.ts). */
  configAt?(node: string, index: string, cluster: string | undefined): Promise<unknown>;
}

export function registerXdsHttp(app: FastifyInstance, deps: XdsHttpDeps): void {
  const { xds } = deps;
  for (const type of RESOURCE_TYPES) {
    // Secrets (private keys) never go out over the HTTP port: SDS is served on gRPC only.
    if (type === Secrets) continue;
    // '::' is fastify's escape for a literal ':' in a path.
    app.post(`/v3/discovery::${type.rest}`, deps.routes.discovery, async (request, reply) => {
      const body = request.body;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw new HubError('INVALID_ARGUMENT', 'body: expected a DiscoveryRequest as a JSON object', { field: 'body' });
      }
      const bytes = jsonToBytes(lookupType('envoy.service.discovery.v3.DiscoveryRequest'), body);
      const req = decodeSotwRequest('v3', bytes);
      // Resources that point at others (EDS in a Cluster, RDS in a Listener) must say "poll REST".
      // The request's token (?token=, X-Consul-Token, Authorization: Bearer) rides on the node, as gRPC metadata does.
      if (req.node) req.node = { ...req.node, configSource: 'rest', credential: tokenFromRequest(request) };
      const result = xds.fetch(type, 'v3', req);
      if (result.notModified) return reply.code(304).send();
      // Canonical proto3 JSON (Any with @type, durations as "5s"): what Envoy's REST client parses.
      return reply.send(bytesToJson(lookupType('envoy.service.discovery.v3.DiscoveryResponse'), result.body));
    });
  }

  app.get('/v1/xds/clients', deps.routes.admin, async () => xds.clients());

  app.get<{ Params: { node: string }; Querystring: { cluster?: string; index?: string } }>(
    '/v1/xds/config/:node',
    deps.routes.admin,
    async (request) => {
      if (request.query.index !== undefined) {
        if (!deps.configAt)
          throw new HubError('INVALID_ARGUMENT', 'index: this hub keeps no history to rebuild from', {
            field: 'index',
          });
        return deps.configAt(request.params.node, request.query.index, request.query.cluster);
      }
      const config = xds.configFor(request.params.node, request.query.cluster);
      if (!config) {
        throw new HubError(
          'NOT_FOUND',
          `node: "${request.params.node}" has no xDS stream here; pass ?cluster= to see what it would get`,
          { field: 'node' },
        );
      }
      return config;
    },
  );
}
