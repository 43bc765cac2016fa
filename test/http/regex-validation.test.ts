// Regexes and weights a client would NACK are refused at write, naming the
// field (docs/http-api.md, "Config entries", Regexes). The oracle for RE2's verdict is
// re2-wasm, the C++ RE2 that @grpc/grpc-js-xds itself compiles route regexes
// with (its dependency): re2js must agree with it on every pattern here.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isHubError } from '../../src/errors';
import { parseConfigEntry } from '../../src/http/translate/config-entries';
import { re2Problem, re2ProgramSize } from '../../src/http/translate/re2';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { RE2 } = require('re2-wasm') as { RE2: new (pattern: string, flags: string) => unknown };

function rejects(fn: () => unknown, field: string, reason?: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(isHubError(err, 'INVALID_ARGUMENT'), `expected INVALID_ARGUMENT, got ${String(err)}`);
    assert.equal(err.field, field);
    if (reason) assert.match(err.message, reason);
    return true;
  });
}

const GOOD = [
  '/api/.*',
  '^/v[0-9]+/users/[0-9a-f]{8}$',
  '(?i)abc',
  '(?P<id>[0-9]+)',
  '(?<id>[0-9]+)',
  '\\d+\\.\\w*',
  '[[:alpha:]]+',
  '\\pL+',
  '\\Q.*\\E',
  'a{,3}',
  '(?s).',
  '\\bfoo\\b',
  'x{2,5}?',
  '(?:a|b)+',
  '.{1,1000}',
];
const BAD = [
  '(?=a)',
  '(?!a)',
  '(?<=a)b',
  '(a)\\1',
  'a*+',
  'a++',
  'a**',
  'x{2,1}',
  '(',
  '[a',
  'a{1001}',
  '(a{100}){100}',
  '\\Z',
  '*a',
  '(?#c)',
];

function cppRe2Accepts(pattern: string): boolean {
  try {
    new RE2(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

test('re2Problem agrees with C++ RE2 (re2-wasm, what grpc-js-xds runs) on lookarounds, backreferences, possessive and bad repetitions', () => {
  for (const p of GOOD) {
    assert.equal(cppRe2Accepts(p), true, `C++ RE2 takes ${p}`);
    assert.equal(re2Problem(p), undefined, `re2js takes ${p}`);
  }
  for (const p of BAD) {
    assert.equal(cppRe2Accepts(p), false, `C++ RE2 rejects ${p}`);
    assert.match(re2Problem(p) ?? '', /^not a valid RE2 regex/, `re2js rejects ${p}`);
  }
  assert.match(re2Problem('(?=a)')!, /\(\?=/, 'the message quotes what RE2 did not take');
});

test("re2ProgramSize: over Envoy's default 100 where Envoy 1.40 refused the pattern, under it where Envoy took it", () => {
  // Measured with `envoy --mode validate` (Envoy's own counts: 3003 and 183 refused; [a-z]{1,40} taken).
  assert.ok(re2ProgramSize('.{1,1000}')! > 100);
  assert.ok(re2ProgramSize('.{1,60}')! > 100);
  assert.ok(re2ProgramSize('[a-z]{1,40}')! <= 100);
  assert.equal(re2ProgramSize('('), undefined);
});

const router = (http: Record<string, unknown>) => ({
  Kind: 'service-router',
  Name: 'web',
  Routes: [{ Match: { HTTP: http }, Destination: { Service: 'api' } }],
});

test('service-router: a path, header or query regex RE2 rejects is a 400 naming the field', () => {
  rejects(
    () => parseConfigEntry(router({ PathRegex: '/api/(?=v1)' })),
    'Routes[0].Match.HTTP.PathRegex',
    /not a valid RE2 regex/,
  );
  rejects(
    () =>
      parseConfigEntry(
        router({
          Header: [
            { Name: 'x-v', Exact: 'a' },
            { Name: 'x-w', Regex: '(a)\\1' },
          ],
        }),
      ),
    'Routes[0].Match.HTTP.Header[1].Regex',
  );
  rejects(
    () => parseConfigEntry(router({ QueryParam: [{ Name: 'q', Regex: 'a*+' }] })),
    'Routes[0].Match.HTTP.QueryParam[0].Regex',
  );
  const ok = parseConfigEntry(router({ PathRegex: '/api/v[0-9]+/.*', Header: [{ Name: 'x-v', Regex: '(?i)canary' }] }));
  assert.equal(ok.Kind, 'service-router');
});

test('http-route: regex path, header and query values are RE2-checked; an empty header or query regex is refused', () => {
  const route = (match: Record<string, unknown>) => ({
    Kind: 'http-route',
    Name: 'r',
    Parents: [{ Name: 'gw' }],
    Rules: [{ Matches: [match], Services: [{ Name: 'api' }] }],
  });
  rejects(
    () => parseConfigEntry(route({ Path: { Match: 'regex', Value: '[a' } })),
    'Rules[0].Matches[0].Path.Value',
    /missing closing \]/,
  );
  rejects(
    () => parseConfigEntry(route({ Headers: [{ Name: 'h', Match: 'regex', Value: 'x{2,1}' }] })),
    'Rules[0].Matches[0].Headers[0].Value',
  );
  rejects(
    () => parseConfigEntry(route({ Headers: [{ Name: 'h', Match: 'regex', Value: '' }] })),
    'Rules[0].Matches[0].Headers[0].Value',
    /needs a regex/,
  );
  rejects(
    () => parseConfigEntry(route({ Query: [{ Name: 'q', Match: 'regex' }] })),
    'Rules[0].Matches[0].Query[0].Value',
  );
  // Not a regex match: the same text is a plain value.
  assert.equal(parseConfigEntry(route({ Path: { Match: 'exact', Value: '/[a' } })).Kind, 'http-route');
});

test("service-intentions: L7 permission regexes are RE2-checked (the RBAC filter is Envoy's)", () => {
  const entry = (http: Record<string, unknown>) => ({
    Kind: 'service-intentions',
    Name: 'api',
    Sources: [{ Name: 'web', Permissions: [{ Action: 'allow', HTTP: http }] }],
  });
  rejects(() => parseConfigEntry(entry({ PathRegex: '(?!admin)' })), 'Sources[0].Permissions[0].HTTP.PathRegex');
  rejects(
    () => parseConfigEntry(entry({ Header: [{ Name: 'h', Regex: '\\Z' }] })),
    'Sources[0].Permissions[0].HTTP.Header[0].Regex',
  );
  assert.equal(parseConfigEntry(entry({ PathRegex: '/api/.*' })).Kind, 'service-intentions');
});

test('service-splitter: weights that cannot make 100%, negative or not numbers, are a 400 naming the field', () => {
  const splitter = (splits: unknown[]) => ({ Kind: 'service-splitter', Name: 'web', Splits: splits });
  rejects(
    () =>
      parseConfigEntry(
        splitter([
          { Weight: 50, Service: 'a' },
          { Weight: 40, Service: 'b' },
        ]),
      ),
    'Splits',
    /add up to 100, got 90/,
  );
  rejects(
    () =>
      parseConfigEntry(
        splitter([
          { Weight: 110, Service: 'a' },
          { Weight: -10, Service: 'b' },
        ]),
      ),
    'Splits[0].Weight',
  );
  rejects(
    () =>
      parseConfigEntry(
        splitter([
          { Weight: 100, Service: 'a' },
          { Weight: -0.5, Service: 'b' },
        ]),
      ),
    'Splits[1].Weight',
  );
  rejects(() => parseConfigEntry(splitter([{ Weight: '100', Service: 'a' }])), 'Splits[0].Weight');
  assert.equal(
    parseConfigEntry(
      splitter([
        { Weight: 33.33, Service: 'a' },
        { Weight: 66.67, Service: 'b' },
      ]),
    ).Kind,
    'service-splitter',
  );
});
