// XA0001 and XA0002: every regex the translation hands a client as safe_regex
// (the fields the write refuses, docs/http-api.md "Config entries"), checked
// with RE2's parser and against Envoy's default program size limit.
import { ENVOY_MAX_PROGRAM_SIZE, re2Problem, re2ProgramSize } from '../../http/translate/re2';
import { type Finding, finding } from './codes';
import { type At, child, entryId, type Json, objects, routerMatches, text } from './fields';

function routerRegexes(e: Json): At<string>[] {
  const out: (At<string> | undefined)[] = [];
  for (const { http } of routerMatches(e)) {
    if (!http) continue;
    out.push(text(http, 'PathRegex'));
    for (const h of objects(http.value, 'Header', http.field)) out.push(text(h, 'Regex'));
    for (const q of objects(http.value, 'QueryParam', http.field)) out.push(text(q, 'Regex'));
  }
  return out.filter((r): r is At<string> => r !== undefined);
}

function httpRouteRegexes(e: Json): At<string>[] {
  const out: (At<string> | undefined)[] = [];
  const isRegex = (m: At<Json> | undefined) => String(m?.value['Match'] ?? '').toLowerCase() === 'regex';
  for (const rule of objects(e, 'Rules')) {
    for (const match of objects(rule.value, 'Matches', rule.field)) {
      const path = child(match, 'Path');
      if (path && isRegex(path)) out.push(text(path, 'Value'));
      for (const h of objects(match.value, 'Headers', match.field)) if (isRegex(h)) out.push(text(h, 'Value'));
      for (const q of objects(match.value, 'Query', match.field)) if (isRegex(q)) out.push(text(q, 'Value'));
    }
  }
  return out.filter((r): r is At<string> => r !== undefined);
}

function intentionRegexes(e: Json): At<string>[] {
  const out: (At<string> | undefined)[] = [];
  for (const source of objects(e, 'Sources')) {
    for (const p of objects(source.value, 'Permissions', source.field)) {
      const http = child(p, 'HTTP');
      if (!http) continue;
      out.push(text(http, 'PathRegex'));
      for (const h of objects(http.value, 'Header', http.field)) out.push(text(h, 'Regex'));
    }
  }
  return out.filter((r): r is At<string> => r !== undefined);
}

/** The regexes of an entry, with their field paths. */
export function regexesOf(e: Json): At<string>[] {
  switch (e['Kind']) {
    case 'service-router':
      return routerRegexes(e);
    case 'http-route':
      return httpRouteRegexes(e);
    case 'service-intentions':
      return intentionRegexes(e);
    default:
      return [];
  }
}

export function checkRegexes(e: Json): Finding[] {
  const out: Finding[] = [];
  const id = entryId(e);
  for (const r of regexesOf(e)) {
    const bad = re2Problem(r.value);
    if (bad) {
      out.push(finding('XA0001', id, r.field, `${JSON.stringify(r.value)} is ${bad}`));
      continue;
    }
    const size = re2ProgramSize(r.value)!;
    if (size > ENVOY_MAX_PROGRAM_SIZE) {
      const why = `compiles to ${size} RE2 instructions (re2js's count; Envoy's is at least as high)`;
      out.push(finding('XA0002', id, r.field, `${JSON.stringify(r.value)} ${why}, over Envoy's default limit of 100`));
    }
  }
  return out;
}
