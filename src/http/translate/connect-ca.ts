// PUT /v1/connect/ca/configuration bodies (Consul's CAConfiguration) → a CA
// configuration update. Only the built-in provider with ECDSA P-256 keys is
// served; anything else is refused naming the field (docs/mesh.md).
import { parseDurationMs } from '../../config';
import type { ConfigUpdate } from '../../connect/manager';
import { goDuration } from '../../connect/manager';
import { invalid } from '../../errors';
import { Body } from '../body';

const KNOWN = [
  'LeafCertTTL',
  'RootCertTTL',
  'IntermediateCertTTL',
  'PrivateKeyType',
  'PrivateKeyBits',
  'PrivateKey',
  'RootCert',
];
const MIN_LEAF_MS = 1_000;
const MAX_LEAF_MS = 8_760 * 3_600_000;

function ttl(body: Body, name: string, fallback: string, bounds?: { min: number; max: number }): string {
  const text = body.duration(name, { positive: true });
  if (text === '') return fallback;
  const ms = parseDurationMs(text, body.field(name));
  if (bounds && (ms < bounds.min || ms > bounds.max)) {
    throw invalid(
      body.field(name),
      `must be between ${goDuration(bounds.min)} and ${goDuration(bounds.max)}, got "${text}"`,
    );
  }
  return goDuration(ms);
}

/** What a GET answers and a client may send back unchanged (Consul ignores them; so does the hub). */
const ECHOED = ['ClusterID', 'State', 'CreateIndex', 'ModifyIndex'];

/**
 * A PUT body → the update. `clusterId` is the CA's: a body may echo it (a GET's
 * answer sent back) but not change it, since the trust domain is made of it.
 */
export function parseCaConfiguration(raw: unknown, clusterId: string): ConfigUpdate {
  const body = Body.of(raw);
  body.onlyKeys(['Provider', 'Config', 'ForceWithoutCrossSigning', ...ECHOED]);
  const provider = body.requiredStr('Provider');
  if (provider !== 'consul')
    throw invalid('Provider', `only the built-in CA ("consul") is served by this hub, got "${provider}"`);
  const config = body.obj('Config');
  if (!config) throw invalid('Config', 'is required (an empty object resets every setting to its default)');
  config.onlyKeys(KNOWN);
  const cluster = body.str('ClusterID');
  if (cluster !== '' && cluster !== clusterId)
    throw invalid(
      'ClusterID',
      `cannot be changed (the trust domain is made of it): the CA's is "${clusterId}", got "${cluster}"`,
    );
  const state = body.get('State');
  if (
    state !== undefined &&
    !(typeof state === 'object' && !Array.isArray(state) && Object.keys(state as object).length === 0)
  ) {
    throw invalid('State', 'must be null or empty: the built-in CA keeps no provider state');
  }
  body.int('CreateIndex', 0, { min: 0 });
  body.int('ModifyIndex', 0, { min: 0 });
  const type = config.str('PrivateKeyType', 'ec');
  if (type !== 'ec')
    throw invalid(config.field('PrivateKeyType'), `only "ec" keys are served by this hub, got "${type}"`);
  const bits = config.int('PrivateKeyBits', 256);
  if (bits !== 256)
    throw invalid(config.field('PrivateKeyBits'), `only 256-bit (P-256) keys are served by this hub, got ${bits}`);
  const rootCert = config.str('RootCert');
  const privateKey = config.str('PrivateKey');
  if (rootCert !== '' && privateKey === '') throw invalid(config.field('PrivateKey'), 'is required with RootCert');
  return {
    config: {
      LeafCertTTL: ttl(config, 'LeafCertTTL', '72h0m0s', { min: MIN_LEAF_MS, max: MAX_LEAF_MS }),
      RootCertTTL: ttl(config, 'RootCertTTL', '87600h0m0s'),
      IntermediateCertTTL: ttl(config, 'IntermediateCertTTL', '8760h0m0s'),
      PrivateKeyType: 'ec',
      PrivateKeyBits: 256,
    },
    forceWithoutCrossSigning: body.bool('ForceWithoutCrossSigning'),
    ...(privateKey ? { privateKey } : {}),
    ...(rootCert ? { rootCert } : {}),
  };
}
