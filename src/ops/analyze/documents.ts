// Files as `consul config write` and `PUT /v1/catalog/register` take them:
// JSON, or HCL (read with @cdktf/hcl2json, which speaks HCL 2: nested blocks
// inside a list are written `Match = { … }`). A file holds one object or a
// JSON list of them; an object with `Kind` is a config entry, one with `Node`
// a catalog registration.
import type { Json } from './fields';

type HclParse = (filename: string, contents: string) => Promise<Json>;
/** Loaded on demand, and untyped: its declarations pull in the DOM lib, which clashes with Node's types. */
function parseHcl(filename: string, contents: string): Promise<Json> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('@cdktf/hcl2json') as { parse: HclParse }).parse(filename, contents);
}

export interface Documents {
  entries: Json[];
  registrations: Json[];
}

/** Top-level keys that are lists; any other key HCL gave as a one-block list is that block. */
const LIST_KEYS = new Set(['routes', 'splits', 'sources', 'listeners', 'parents', 'rules', 'hostnames', 'checks']);

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function unwrapBlocks(o: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) {
    const single = Array.isArray(v) && v.length === 1 && isObject(v[0]);
    out[k] = single && !LIST_KEYS.has(k.toLowerCase()) ? v[0] : v;
  }
  return out;
}

export class DocumentError extends Error {}

/** The documents of one file; `name` decides HCL (`.hcl`) or JSON and names the file in errors. */
export async function parseDocuments(name: string, text: string): Promise<Documents> {
  let parsed: unknown;
  try {
    parsed = name.endsWith('.hcl') ? unwrapBlocks(await parseHcl(name, text)) : JSON.parse(text);
  } catch (err) {
    throw new DocumentError(`${name}: ${(err as Error).message}`);
  }
  const out: Documents = { entries: [], registrations: [] };
  const items = Array.isArray(parsed) ? parsed : [parsed];
  items.forEach((item, i) => {
    const where = Array.isArray(parsed) ? `${name}[${i}]` : name;
    if (!isObject(item)) throw new DocumentError(`${where}: not an object`);
    const o = item;
    const key = (k: string) => Object.keys(o).find((x) => x.toLowerCase() === k);
    if (key('kind')) out.entries.push(canonicalTop(o, key('kind')!, key('name')));
    else if (key('node')) out.registrations.push(o);
    else throw new DocumentError(`${where}: neither a config entry (Kind) nor a catalog registration (Node)`);
  });
  return out;
}

/** `kind`/`name` as Kind/Name (consul config write takes either spelling). */
function canonicalTop(o: Json, kindKey: string, nameKey: string | undefined): Json {
  const { [kindKey]: kind, ...rest } = o;
  const out: Json = { Kind: kind, ...rest };
  if (nameKey && nameKey !== 'Name') {
    out['Name'] = o[nameKey];
    delete out[nameKey];
  }
  return out;
}

export function merge(all: readonly Documents[]): Documents {
  return { entries: all.flatMap((d) => d.entries), registrations: all.flatMap((d) => d.registrations) };
}
