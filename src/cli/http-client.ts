// What every operator command shares: the hub's address and token taken as the
// `consul` CLI takes them (`-http-addr`/`CONSUL_HTTP_ADDR`, `-token`/`CONSUL_HTTP_TOKEN`,
// also with two dashes), one request function, and one way to report the hub's
// refusals (403, 400, 404, 409) so that every command exits non-zero with the
// hub's own message.
import { type ParseArgsConfig, parseArgs } from 'node:util';

/** Exit codes of every command: docs/operator-tools.md, "CLI". */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export const COMMON_FLAGS_USAGE = `common flags (as the consul CLI takes them):
  -http-addr ADDR   the hub's HTTP address (env CONSUL_HTTP_ADDR; default http://127.0.0.1:8500)
  -token TOKEN      the ACL token sent as X-Consul-Token (env CONSUL_HTTP_TOKEN)
  (each also as --http-addr, --token)`;

const COMMON_OPTIONS = {
  'http-addr': { type: 'string' },
  // The first spelling of `xdshub diff`'s address flag, kept so scripts keep working.
  hub: { type: 'string' },
  token: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

export class HubRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A usage error: printed with the command's usage, exit 2. */
export class UsageError extends Error {}

export interface HubClient {
  readonly address: string;
  /** JSON from the hub; a non-2xx answer throws HubRefusal carrying the hub's message. */
  request<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
}

/**
 * The consul CLI spells long flags with one dash (`-http-addr`); node's parser
 * wants two. A lone `-` (stdin) and one-letter flags (`-o`) are left as they are.
 */
export function normalizeFlags(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (const a of argv) {
    if (a === '--') {
      out.push(...argv.slice(out.length));
      break;
    }
    out.push(/^-[a-z][a-z-]+(=.*)?$/i.test(a) ? `-${a}` : a);
  }
  return out;
}

/** `CONSUL_HTTP_ADDR` may be `host:port` (as consul takes it) or a URL. */
export function hubAddress(flag: string | undefined, env: Record<string, string | undefined>): string {
  const raw = flag ?? env['CONSUL_HTTP_ADDR'] ?? env['XDSHUB_HTTP_ADDR'] ?? 'http://127.0.0.1:8500';
  const withScheme = /^https?:\/\//.test(raw)
    ? raw
    : `${env['CONSUL_HTTP_SSL'] === 'true' ? 'https' : 'http'}://${raw}`;
  return withScheme.replace(/\/+$/, '');
}

export type Values = Record<string, string | boolean | undefined>;

export interface Parsed {
  values: Values;
  positionals: string[];
  hub: HubClient;
}

/** Parses the command's own options plus the common ones; throws UsageError on a bad flag. */
export function parseCommand(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  options: NonNullable<ParseArgsConfig['options']>,
): Parsed {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: normalizeFlags(argv),
      options: { ...options, ...COMMON_OPTIONS },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const v = parsed.values as Values;
  const address = hubAddress((v['http-addr'] ?? v['hub']) as string | undefined, env);
  const token = (v['token'] as string | undefined) ?? env['CONSUL_HTTP_TOKEN'];
  return { values: v, positionals: parsed.positionals, hub: hubClient(address, token) };
}

export function hubClient(address: string, token: string | undefined): HubClient {
  return {
    address,
    async request<T>(method: string, path: string, body?: unknown): Promise<T> {
      const headers: Record<string, string> = {};
      if (token) headers['x-consul-token'] = token;
      if (body !== undefined) headers['content-type'] = 'application/json';
      let res: Response;
      try {
        res = await fetch(`${address}${path}`, {
          method,
          headers,
          ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
        });
      } catch (err) {
        throw new HubRefusal(
          0,
          `cannot reach the hub at ${address}: ${((err as Error).cause as Error)?.message ?? (err as Error).message}`,
        );
      }
      const text = await res.text();
      if (!res.ok) throw new HubRefusal(res.status, refusalText(res.status, text, token));
      return (text === '' ? undefined : JSON.parse(text)) as T;
    },
  };
}

/** The hub's message, and for a 403 what to do about it. */
function refusalText(status: number, text: string, token: string | undefined): string {
  let message = text.trim();
  try {
    const j = JSON.parse(text) as { error?: string; message?: string };
    message = j.error ?? j.message ?? message;
  } catch {
    // A plain-text answer (Consul's 403 "Permission denied: …") is the message as it is.
  }
  const hint =
    status === 403
      ? token
        ? ' (the token lacks the right named; docs/operator-tools.md, "CLI")'
        : ' (no token given: pass -token or set CONSUL_HTTP_TOKEN)'
      : '';
  return `${status} ${message || '(no message)'}${hint}`;
}

/**
 * Runs a command body with the shared error handling: a usage error exits 2
 * with the usage, a refusal from the hub exits 1 with its message.
 */
export async function runCommand(name: string, usage: string, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`xdshub ${name}: ${err.message}\n${usage}\n`);
      return EXIT.usage;
    }
    if (err instanceof HubRefusal) {
      process.stderr.write(`xdshub ${name}: ${err.message}\n`);
      return EXIT.failed;
    }
    // A file that cannot be read (ENOENT, EACCES): its message names it.
    if (
      err instanceof Error &&
      typeof (err as NodeJS.ErrnoException).code === 'string' &&
      (err as NodeJS.ErrnoException).syscall
    ) {
      process.stderr.write(`xdshub ${name}: ${err.message}\n`);
      return EXIT.failed;
    }
    throw err;
  }
}

/** Prints usage for --help; true when it did. */
export function helpAsked(values: Values, usage: string): boolean {
  if (values['help']) process.stdout.write(`${usage}\n`);
  return values['help'] === true;
}

/** `5s ago`, `3m ago` — the age of a moment, as operators read it. */
export function age(atMs: number | null | undefined, nowMs = Date.now()): string {
  if (atMs === null || atMs === undefined) return '-';
  const s = Math.max(0, Math.round((nowMs - atMs) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}

/** Columns padded to their widest cell. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

export type OutputFormat = 'table' | 'json' | 'yaml';

export function outputFormat(value: string | undefined): OutputFormat {
  const v = value ?? 'table';
  if (v !== 'table' && v !== 'json' && v !== 'yaml')
    throw new UsageError(`-o: expected table, json or yaml, got "${v}"`);
  return v;
}

/** json and yaml print the hub's answer as it is; table calls `asTable`. */
export function render(format: OutputFormat, data: unknown, asTable: () => string): string {
  if (format === 'json') return `${JSON.stringify(data, null, 2)}\n`;
  if (format === 'yaml') {
    const { stringify } = require('yaml') as typeof import('yaml');
    return stringify(data);
  }
  return asTable();
}
