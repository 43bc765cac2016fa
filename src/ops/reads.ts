// Reads over the log and the history: what a node was due at an index, the
// difference between two indexes, and a node's history. Replays use a shadow
// of their own (one at a time), so the live translation is never touched.
import { HubError } from '../errors';
import type { Log } from '../log/log';
import type { XdsNode } from '../xds/transport/provider';
import type { XdsServer } from '../xds/transport/server';
import { diffResources, type ResourceDiff, resourcesJson, resourcesOf } from './diff';
import type { History } from './history';
import { parseIndex, stateAt } from './replay';
import type { Shadow } from './shadow';

export interface ReadDeps {
  log: Log;
  history: History;
  newShadow(): Shadow;
  xds(): XdsServer | undefined;
}

export interface OpsReads {
  configAt(node: string, index: string, cluster: string | undefined): Promise<unknown>;
  diff(
    node: string,
    from: string,
    to: string,
    cluster: string | undefined,
  ): Promise<{ node: { id: string; cluster: string }; from: string; to: string } & ResourceDiff>;
}

export function opsReads(deps: ReadDeps): OpsReads {
  let shadow: Shadow | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  /** One replay at a time on one shadow (kept between calls: consecutive replays retranslate only what differs). */
  function serial<T>(f: (s: Shadow) => Promise<T>): Promise<T> {
    const run = queue.then(() => f((shadow ??= deps.newShadow())));
    queue = run.catch(() => undefined);
    return run;
  }

  /** The node as the hub knows it: connected, in the history, or named with ?cluster=. */
  async function nodeOf(id: string, cluster: string | undefined): Promise<XdsNode> {
    const live = deps
      .xds()
      ?.streams()
      .find((s) => s.node?.id === id)?.node;
    if (live && cluster === undefined) return live;
    const known = (await deps.history.nodes()).find((n) => n.id === id);
    if (known && cluster === undefined)
      return {
        id,
        cluster: known.cluster,
        userAgent: known.userAgent,
        clientFeatures: [],
        ...(known.configSource ? { configSource: known.configSource } : {}),
      };
    if (cluster !== undefined)
      return {
        id,
        cluster,
        userAgent: live?.userAgent ?? known?.userAgent ?? '',
        clientFeatures: [],
        ...(live?.configSource ? { configSource: live.configSource } : {}),
      };
    throw new HubError(
      'NOT_FOUND',
      `node "${id}" is neither connected nor in the history; pass ?cluster= to ask for any node`,
      { field: 'node' },
    );
  }

  async function resourcesAt(s: Shadow, node: XdsNode, index: bigint) {
    await s.sync(await stateAt(deps.log, index));
    return resourcesOf(s.provider, node, undefined);
  }

  return {
    async configAt(id, indexText, cluster) {
      const index = parseIndex(indexText, 'index');
      const node = await nodeOf(id, cluster);
      return serial(async (s) => ({
        node: { id: node.id, cluster: node.cluster },
        index: String(index),
        resources: resourcesJson(await resourcesAt(s, node, index)),
      }));
    },
    async diff(id, fromText, toText, cluster) {
      const from = parseIndex(fromText, 'from');
      const to = parseIndex(toText, 'to');
      const node = await nodeOf(id, cluster);
      return serial(async (s) => {
        const a = await resourcesAt(s, node, from);
        const b = await resourcesAt(s, node, to);
        return {
          node: { id: node.id, cluster: node.cluster },
          from: String(from),
          to: String(to),
          ...diffResources(a, b),
        };
      });
    },
  };
}
