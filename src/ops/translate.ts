// `xdshub translate` (docs/analyze.md): catalog registrations and config
// entries from files in, the xDS resources each named node would receive out,
// with no hub running. It is the hub's own pipeline in-process, without a
// listening socket: the write path's validation (the HTTP translators), a
// catalog over a memory log, the publisher, views materialized from it, the
// built-in CA, and the catalog provider with the per-client config sources —
// what `xdshub serve` wires (src/hub.ts), minus the servers.
import type { Logger } from 'pino';
import type { ApplyResult, Command } from '../catalog/commands';
import { createCatalog } from '../catalog/index';
import { DEFAULTS } from '../config';
import { startConnectCa } from '../connect/manager';
import { catalogConnectSource } from '../connect/source';
import { isHubError } from '../errors';
import { registerCommand } from '../http/translate/catalog';
import { parseConfigEntry } from '../http/translate/config-entries';
import { checkIntentionProtocol } from '../http/translate/intentions';
import { openLog } from '../log/index';
import { createViewStore, inProcessSource } from '../materializer/index';
import { createPublisher } from '../subscribe/publisher';
import { createCatalogXdsProvider } from '../xds/translate/catalog-provider';
import { withClientConfigSources } from '../xds/translate/config-sources';
import type { XdsNode } from '../xds/transport/provider';
import type { Documents } from './analyze/documents';
import type { Json } from './analyze/fields';
import { resourcesJson, resourcesOf } from './diff';

export class TranslateError extends Error {}

export interface TranslateOptions {
  datacenter?: string;
  defaultIntention?: 'allow' | 'deny';
  logger: Logger;
}

export interface NodeConfig {
  node: { id: string; cluster: string; userAgent: string };
  /** As GET /v1/xds/config/:node: per type, name → {version, resource} (secrets never shown). */
  resources: ReturnType<typeof resourcesJson>;
}

/** Entries whose checks read others go after them: protocols before chains and L7 intentions. */
const KIND_ORDER = ['service-defaults', 'mesh', 'service-resolver', 'service-splitter', 'service-router'];
const rank = (e: Json) => {
  const i = KIND_ORDER.indexOf(String(e['Kind']));
  return i < 0 ? KIND_ORDER.length : i;
};

type Reader = Parameters<typeof checkIntentionProtocol>[1];

function commandsOf(docs: Documents, datacenter: string, catalogFor: () => Reader) {
  const out: { where: string; build: () => Command }[] = [];
  for (const r of docs.registrations) {
    out.push({ where: `registration of node ${String(r['Node'])}`, build: () => registerCommand(r, { datacenter }) });
  }
  for (const e of [...docs.entries].sort((a, b) => rank(a) - rank(b))) {
    out.push({
      where: `${String(e['Kind'])}/${String(e['Name'] ?? '')}`,
      build: () => {
        const entry = parseConfigEntry(e);
        checkIntentionProtocol(entry, catalogFor());
        return { type: 'config-set', entry };
      },
    });
  }
  return out;
}

/** What each of `nodes` would receive from a hub holding `docs` (written: registrations, then entries by kind). */
export async function translateOffline(
  docs: Documents,
  nodes: readonly XdsNode[],
  options: TranslateOptions,
): Promise<NodeConfig[]> {
  const { logger } = options;
  const datacenter = options.datacenter ?? DEFAULTS.datacenter;
  const log = await openLog({ kind: 'memory' }, '', logger);
  const catalog = await createCatalog({ log, logger });
  const connect = startConnectCa({ catalog, logger, datacenter, initialLeafTtlMs: DEFAULTS.caLeafCertTtlMs });
  try {
    await connect.ready();
    for (const { where, build } of commandsOf(docs, datacenter, () => catalog)) {
      let result: ApplyResult;
      try {
        result = await catalog.submit(build());
      } catch (err) {
        if (isHubError(err, 'INVALID_ARGUMENT')) throw new TranslateError(`${where}: ${err.message}`);
        throw err;
      }
      if (!result.ok) throw new TranslateError(`${where}: ${result.error?.message ?? 'refused'}`);
    }
    const publisher = createPublisher({ catalog, snapshotCacheTtlMs: DEFAULTS.snapshotCacheTtlMs, logger });
    const views = createViewStore({ source: inProcessSource(publisher), logger });
    const provider = createCatalogXdsProvider({
      views,
      logger,
      connect: catalogConnectSource(catalog),
      datacenter,
      defaultIntention: options.defaultIntention ?? DEFAULTS.defaultIntention,
    });
    try {
      // The views start from a snapshot of the final state: ready() is that state translated.
      await provider.ready();
      const served = withClientConfigSources(provider);
      return nodes.map((node) => ({
        node: { id: node.id, cluster: node.cluster, userAgent: node.userAgent },
        resources: resourcesJson(resourcesOf(served, node, undefined)),
      }));
    } finally {
      provider.close();
      views.close();
      publisher.close();
    }
  } finally {
    connect.stop();
    await catalog.close();
    await log.close();
  }
}
