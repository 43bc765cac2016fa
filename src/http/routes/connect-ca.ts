// The built-in CA's endpoints, as Consul serves them (docs/mesh.md "The
// built-in CA"): the trust bundle (/v1/connect/ca/roots and the agent's copy),
// the CA configuration (a key change rotates the root), and a service's leaf
// certificate (/v1/agent/connect/ca/leaf/:service). All are blocking queries.
// No answer ever carries a root's private key; a leaf's key goes only to the
// leaf endpoint, as Consul's agent hands it to its proxies.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ConnectCa } from '../../connect/manager';
import { meshNameProblem } from '../../connect/spiffe';
import type { CaRoot, ConnectState } from '../../connect/types';
import { HubError, invalid } from '../../errors';
import { requireAccess } from '../acl';
import { blockingRead } from '../blocking';
import type { HttpContext } from '../context';
import { required } from '../query';
import { sendJson } from '../reply';
import { policy } from '../route-policy';
import { flag } from '../shapes';
import { parseCaConfiguration } from '../translate/connect-ca';

type NameParams = { Params: { service: string } };

function publicRoot(r: CaRoot): Record<string, unknown> {
  const { PrivateKey: _secret, ...rest } = r;
  return rest;
}

export function rootsAnswer(s: ConnectState): Record<string, unknown> {
  return {
    ActiveRootID: s.roots.find((r) => r.Active)?.ID ?? '',
    TrustDomain: s.trustDomain,
    Roots: s.roots.map(publicRoot),
  };
}

export function connectCaRoutes(app: FastifyInstance, ctx: HttpContext, ca: ConnectCa): void {
  const roots = async (req: FastifyRequest, reply: FastifyReply) => {
    await ca.ready();
    const s = await blockingRead(ctx, req, reply, () => {
      const state = ctx.catalog.connectCa();
      return { index: Math.max(1, state.rootsIndex), value: state };
    });
    // ?pem: the roots as one PEM bundle (Consul 1.13+).
    if (flag(req.query as Record<string, unknown>, 'pem')) {
      return reply
        .type('application/pem-certificate-chain')
        .send(`${s.roots.map((r) => r.RootCert.trim()).join('\n')}\n`);
    }
    return sendJson(reply, rootsAnswer(s));
  };
  app.get('/v1/connect/ca/roots', policy.public, roots);
  app.get('/v1/agent/connect/ca/roots', policy.public, roots);

  app.get('/v1/connect/ca/configuration', policy.needs('operator', 'read'), async (req, reply) => {
    await ca.ready();
    const config = await blockingRead(ctx, req, reply, () => {
      const c = ctx.catalog.connectCa().config!;
      return { index: c.ModifyIndex, value: c };
    });
    return sendJson(reply, { ...config, State: null });
  });

  app.put('/v1/connect/ca/configuration', policy.needs('operator', 'write'), async (req, reply) => {
    await ca.ready();
    const index = await ca.configure(parseCaConfiguration(req.body, ctx.catalog.connectCa().config!.ClusterID));
    reply.header('X-Consul-Index', String(index));
    return reply.code(200).send('');
  });

  app.get<NameParams>('/v1/agent/connect/ca/leaf/:service', policy.checked, async (req, reply) => {
    const service = required(req.params.service, 'service', 'Missing service name');
    // It becomes the leaf's SPIFFE ID and is kept fresh from then on: only names a SPIFFE ID can carry.
    const bad = meshNameProblem(service);
    if (bad) throw invalid('service', bad);
    // Its private key is in the answer: only for who may write the service (Consul's rule).
    requireAccess(ctx.acl, req, 'service', 'write', service);
    // Issued on first ask (and kept fresh from then on); a blocking query answers when it is renewed.
    await ca.leaf(service);
    const leaf = await blockingRead(ctx, req, reply, () => {
      const l = ctx.catalog.connectCa().leaves.get(service);
      if (!l) throw new HubError('INTERNAL', `the leaf of "${service}" is gone`);
      return { index: l.ModifyIndex, value: l };
    });
    const { RootID: _root, ...issued } = leaf;
    return sendJson(reply, issued);
  });
}
