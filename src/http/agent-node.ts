// The hub's own node, registered at start as a Consul agent registers its
// node when it joins: `consul catalog nodes` on a fresh hub lists it, and the
// first agent service registration finds the node there, so it needs only
// `service:write` (docs/security.md), never `node:write`.
import type pino from 'pino';
import type { Catalog } from '../catalog/catalog';
import { agentIdentity, agentNode } from './translate/agent';

/**
 * Writes the hub's node (config.nodeName at its address) unless the catalog
 * already holds it as such: the same node again is a no-op that appends
 * nothing, so restarts and several hubs on one log cost nothing. A log that
 * refuses the write (a store outage) does not stop the start: the first agent
 * registration writes the node then.
 */
export async function registerAgentNode(
  catalog: Catalog,
  config: { nodeName: string; bind: string; datacenter: string },
  logger: pino.Logger,
): Promise<void> {
  const node = agentNode(agentIdentity(config));
  const current = catalog.node(config.nodeName).value;
  if (current && current.Node.Address === node.Address && current.Node.ID === node.ID) return;
  try {
    const result = await catalog.submit({ type: 'register', node, checks: [], skipNodeUpdate: false });
    if (!result.ok)
      logger.warn(
        { module: 'agent-node', node: config.nodeName, error: result.error?.message },
        "the hub's node was not registered",
      );
  } catch (err) {
    logger.warn(
      { module: 'agent-node', node: config.nodeName, err },
      "the hub's node was not registered; the first agent registration will",
    );
  }
}
