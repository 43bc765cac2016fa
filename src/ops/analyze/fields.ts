// Walking config entries as the translation reads them (src/xds/translate):
// PascalCase keys, untyped values. Each helper yields the value with its Consul
// field path, so a finding names the field as the hub's 400 would.
import { list, record, str } from '../../xds/translate/inputs';

export type Json = Record<string, unknown>;

export interface At<T> {
  field: string;
  value: T;
}

/** The objects of a list field, with their paths (`Routes[2]`). */
export function objects(parent: Json | undefined, key: string, path = ''): At<Json>[] {
  const base = path ? `${path}.${key}` : key;
  const out: At<Json>[] = [];
  list(parent?.[key]).forEach((v, i) => {
    const o = record(v);
    if (o) out.push({ field: `${base}[${i}]`, value: o });
  });
  return out;
}

/** An object field with its path (`Routes[2].Match`). */
export function child(parent: At<Json> | undefined, key: string): At<Json> | undefined {
  const o = record(parent?.value[key]);
  return o && parent ? { field: parent.field ? `${parent.field}.${key}` : key, value: o } : undefined;
}

/** A non-empty string field with its path. */
export function text(parent: At<Json>, key: string): At<string> | undefined {
  const v = str(parent.value[key]);
  return v === undefined ? undefined : { field: parent.field ? `${parent.field}.${key}` : key, value: v };
}

export function entryId(e: Json): string {
  return `${String(e['Kind'] ?? '?')}/${String(e['Name'] ?? '?')}`;
}

export function root(e: Json): At<Json> {
  return { field: '', value: e };
}

/** Where a router route's HTTP match is: `Routes[i].Match.HTTP`. */
export function routerMatches(e: Json): { route: At<Json>; http: At<Json> | undefined }[] {
  return objects(e, 'Routes').map((route) => ({ route, http: child(child(route, 'Match'), 'HTTP') }));
}
