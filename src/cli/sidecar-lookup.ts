// `xdshub envoy bootstrap --proxy-id ID` / `--sidecar-for SERVICE_ID`: finds
// the connect-proxy on the hub's agent API (GET /v1/agent/services), as
// `consul connect envoy -proxy-id` / `-sidecar-for` ask their agent, so the
// bootstrap names the proxy (node.id = its service ID, node.cluster = its
// service name) and a typo is an error instead of an Envoy that gets nothing.
import { HubError } from '../errors';

export interface ProxyLookup {
  httpAddr: string;
  token?: string;
  proxyId?: string;
  sidecarFor?: string;
  fetch?: typeof fetch;
}

interface AgentService {
  ID: string;
  Service: string;
  Kind?: string;
  Proxy?: { DestinationServiceID?: string };
}

/** The proxy's service ID and name. Throws HubError (NOT_FOUND / INVALID_ARGUMENT / SHUTTING_DOWN) with a message for the command line. */
export async function lookupProxy(o: ProxyLookup): Promise<{ id: string; service: string }> {
  const doFetch = o.fetch ?? fetch;
  let services: Record<string, AgentService>;
  try {
    const res = await doFetch(`http://${o.httpAddr}/v1/agent/services`, {
      headers: o.token ? { 'X-Consul-Token': o.token } : {},
    });
    if (!res.ok)
      throw new HubError(
        'INVALID_ARGUMENT',
        `GET /v1/agent/services on ${o.httpAddr}: ${res.status} ${(await res.text()).trim()}`,
      );
    services = (await res.json()) as Record<string, AgentService>;
  } catch (err) {
    if (err instanceof HubError) throw err;
    throw new HubError(
      'SHUTTING_DOWN',
      `cannot reach the hub at ${o.httpAddr} to look up the proxy: ${(err as Error).message}`,
    );
  }
  const proxies = Object.values(services).filter((s) => s.Kind === 'connect-proxy');
  if (o.sidecarFor !== undefined) {
    const found = proxies.filter((s) => s.Proxy?.DestinationServiceID === o.sidecarFor);
    if (found.length === 0) throw new HubError('NOT_FOUND', `No sidecar proxy registered for ${o.sidecarFor}`);
    if (found.length > 1)
      throw new HubError(
        'INVALID_ARGUMENT',
        `More than one sidecar proxy registered for ${o.sidecarFor}: ${found.map((s) => s.ID).join(', ')}; give --proxy-id`,
      );
    return { id: found[0]!.ID, service: found[0]!.Service };
  }
  const s = services[o.proxyId ?? ''];
  if (!s) throw new HubError('NOT_FOUND', `no service with ID "${o.proxyId}" is registered on the hub's agent`);
  if (s.Kind !== 'connect-proxy')
    throw new HubError('INVALID_ARGUMENT', `service "${s.ID}" is not a connect-proxy (Kind "${s.Kind ?? ''}")`);
  return { id: s.ID, service: s.Service };
}
