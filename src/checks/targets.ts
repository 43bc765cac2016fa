// Where a check may point: only at loopback and at the networks the operator
// allows (--check-allow-cidr), so registering a check cannot make the hub probe
// arbitrary hosts. Host names are resolved and every address must be allowed;
// the probe then connects to the address that was checked, not to a second lookup.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { invalid } from '../errors';

export interface AddressPolicy {
  /** Throws a 400 naming `field` when `host` (an IP or a name) is, or resolves to, an address the hub may not probe. */
  resolve(host: string, field: string): Promise<string>;
  describe(): string;
}

/** Parses "10.0.0.0/8" / "fd00::/8" / a bare address; throws a 400 naming the flag. */
function addCidr(list: BlockList, cidr: string, field: string): void {
  const [address, prefixText] = cidr.split('/') as [string, string | undefined];
  const family = isIP(address);
  if (family === 0) throw invalid(field, `not a CIDR block: "${cidr}"`);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const max = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) throw invalid(field, `not a CIDR block: "${cidr}"`);
  list.addSubnet(address, prefix, type);
}

export function validateCidrs(cidrs: readonly string[], field = 'check-allow-cidr'): void {
  const list = new BlockList();
  for (const c of cidrs) addCidr(list, c, field);
}

export function createAddressPolicy(allowCidrs: readonly string[]): AddressPolicy {
  const allowed = new BlockList();
  addCidr(allowed, '127.0.0.0/8', 'loopback');
  addCidr(allowed, '::1/128', 'loopback');
  for (const c of allowCidrs) addCidr(allowed, c, 'check-allow-cidr');
  const isAllowed = (address: string) => {
    const family = isIP(address);
    if (family === 0) return false;
    // An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return allowed.check(mapped[1]!, 'ipv4');
    return allowed.check(address, family === 4 ? 'ipv4' : 'ipv6');
  };
  const describe = () => `loopback${allowCidrs.length > 0 ? ` or ${allowCidrs.join(', ')}` : ''} (--check-allow-cidr)`;
  return {
    describe,
    async resolve(host, field) {
      const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
      let addresses: string[];
      if (isIP(bare) !== 0) addresses = [bare];
      else {
        try {
          addresses = (await lookup(bare, { all: true })).map((a) => a.address);
        } catch (err) {
          throw invalid(field, `cannot resolve "${bare}": ${(err as Error).message}`);
        }
      }
      const refused = addresses.filter((a) => !isAllowed(a));
      if (addresses.length === 0 || refused.length > 0) {
        throw invalid(
          field,
          `"${bare}" (${addresses.join(', ') || 'no address'}) is not an address this hub may probe: only ${describe()}`,
        );
      }
      return addresses[0]!;
    },
  };
}

/** The host and port a check connects to, from its definition. */
export interface Target {
  kind: 'http' | 'tcp' | 'grpc';
  host: string;
  port: number;
  /** HTTP: the whole URL; gRPC: the health service name ("" = the server as a whole). */
  url?: URL;
  service?: string;
}

function hostPort(text: string, field: string, defaultPort?: number): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:/]+)(?::(\d+))?$/.exec(text);
  const port = m?.[2] !== undefined ? Number(m[2]) : defaultPort;
  if (!m || port === undefined || port < 1 || port > 65535) throw invalid(field, `must be host:port, got "${text}"`);
  return { host: m[1]!, port };
}

/** Reads the target of an HTTP, TCP or gRPC check; throws a 400 naming the field when it is malformed. */
export function parseTarget(kind: 'http' | 'tcp' | 'grpc', text: string, field: string): Target {
  if (kind === 'http') {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw invalid(field, `not a URL: "${text}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw invalid(field, `must be an http:// or https:// URL, got "${text}"`);
    return { kind, host: url.hostname, port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)), url };
  }
  if (kind === 'grpc') {
    const slash = text.indexOf('/');
    const { host, port } = hostPort(slash < 0 ? text : text.slice(0, slash), field);
    return { kind, host, port, service: slash < 0 ? '' : text.slice(slash + 1) };
  }
  return { kind, ...hostPort(text, field) };
}
