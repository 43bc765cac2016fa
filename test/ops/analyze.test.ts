// `xdshub analyze`'s core (src/ops/analyze): each class of mistake is found
// with its code and field, and a clean configuration passes with nothing.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AnalyzeInput, analyze } from '../../src/ops/analyze/analyze';
import { CODES } from '../../src/ops/analyze/codes';
import { parseDocuments } from '../../src/ops/analyze/documents';

const SERVICES = ['web', 'api', 'admin', 'billing'];

const CLEAN: AnalyzeInput = {
  services: SERVICES,
  entries: [
    { Kind: 'service-defaults', Name: 'web', Protocol: 'http' },
    { Kind: 'service-resolver', Name: 'api', Subsets: { v1: { Filter: 'Service.Meta.version == v1' }, v2: {} } },
    {
      Kind: 'service-router',
      Name: 'web',
      Routes: [
        { Match: { HTTP: { PathPrefix: '/admin' } }, Destination: { Service: 'admin' } },
        {
          Match: { HTTP: { PathRegex: '/api/v[0-9]+/.*', Header: [{ Name: 'x-canary', Exact: '1' }] } },
          Destination: { Service: 'api', ServiceSubset: 'v2' },
        },
        { Match: { HTTP: { PathRegex: '/api/v[0-9]+/.*' } }, Destination: { Service: 'api', ServiceSubset: 'v1' } },
      ],
    },
    {
      Kind: 'service-splitter',
      Name: 'web',
      Splits: [
        { Weight: 90, Service: 'web' },
        { Weight: 10, Service: 'api', ServiceSubset: 'v2' },
      ],
    },
    {
      Kind: 'service-intentions',
      Name: 'api',
      Sources: [
        { Name: 'web', Action: 'allow' },
        { Name: '*', Action: 'deny' },
      ],
    },
    {
      Kind: 'ingress-gateway',
      Name: 'gw',
      Listeners: [{ Port: 8080, Protocol: 'http', Services: [{ Name: 'web' }, { Name: '*' }] }],
    },
  ],
  registrations: [{ Node: 'n1', Address: '10.0.0.1', Service: { Service: 'web', Port: 80 } }],
};

function codes(input: AnalyzeInput): string[] {
  return analyze(input).findings.map((f) => `${f.code} ${f.entry} ${f.field ?? ''}`.trim());
}

function withEntries(...entries: AnalyzeInput['entries']): AnalyzeInput {
  return { ...CLEAN, entries: [...CLEAN.entries, ...entries] };
}

test('a clean configuration has no findings', () => {
  assert.deepEqual(analyze(CLEAN), { findings: [], errors: 0, warnings: 0 });
});

test("XA0001: regexes RE2 rejects, in routers, http-routes and intentions; XA0002: over Envoy's program size", () => {
  const out = codes(
    withEntries(
      { Kind: 'service-defaults', Name: 'admin', Protocol: 'http' },
      {
        Kind: 'service-router',
        Name: 'admin',
        Routes: [{ Match: { HTTP: { PathRegex: '/(?=x)', Header: [{ Name: 'h', Regex: '.{1,1000}' }] } } }],
      },
      {
        Kind: 'http-route',
        Name: 'r',
        Parents: [{ Name: 'gw' }],
        Rules: [{ Matches: [{ Path: { Match: 'regex', Value: '(a)\\1' } }], Services: [{ Name: 'web' }] }],
      },
      {
        Kind: 'service-intentions',
        Name: 'web',
        Sources: [{ Name: 'api', Permissions: [{ Action: 'allow', HTTP: { PathRegex: 'a**' } }] }],
      },
    ),
  );
  assert.deepEqual(out, [
    'XA0001 http-route/r Rules[0].Matches[0].Path.Value',
    'XA0001 service-intentions/web Sources[0].Permissions[0].HTTP.PathRegex',
    'XA0001 service-router/admin Routes[0].Match.HTTP.PathRegex',
    'XA0002 service-router/admin Routes[0].Match.HTTP.Header[0].Regex',
  ]);
});

/** CLEAN with its entries of `kind`/`name` replaced by `entries`. */
function replacing(kind: string, name: string, ...entries: AnalyzeInput['entries']): AnalyzeInput {
  return { ...CLEAN, entries: [...CLEAN.entries.filter((e) => e['Kind'] !== kind || e['Name'] !== name), ...entries] };
}

test('XA0003 and XA0004: routes, splits, redirects, gateways and http-routes to services or subsets that do not exist', () => {
  const out = codes(
    replacing(
      'service-router',
      'web',
      { Kind: 'service-defaults', Name: 'api', Protocol: 'http' },
      {
        Kind: 'service-router',
        Name: 'web',
        Routes: [
          { Match: { HTTP: { PathPrefix: '/y' } }, Destination: { Service: 'amdin' } },
          { Match: { HTTP: { PathPrefix: '/x' } }, Destination: { Service: 'api', ServiceSubset: 'v3' } },
        ],
      },
      { Kind: 'service-splitter', Name: 'api', Splits: [{ Weight: 100, Service: 'api', ServiceSubset: 'canary' }] },
      { Kind: 'service-resolver', Name: 'billing', Redirect: { Service: 'payments' } },
      {
        Kind: 'ingress-gateway',
        Name: 'gw2',
        Listeners: [{ Port: 80, Protocol: 'http', Services: [{ Name: 'shop' }] }],
      },
      { Kind: 'http-route', Name: 'r', Parents: [{ Name: 'gw' }], Rules: [{ Services: [{ Name: 'cart' }] }] },
      { Kind: 'terminating-gateway', Name: 'term', Services: [{ Name: 'api' }, { Name: 'legacy-db' }] },
    ),
  );
  assert.deepEqual(out, [
    'XA0003 http-route/r Rules[0].Services[0].Name',
    'XA0003 ingress-gateway/gw2 Listeners[0].Services[0].Name',
    'XA0003 service-resolver/billing Redirect.Service',
    'XA0003 service-router/web Routes[0].Destination.Service',
    'XA0004 service-router/web Routes[1].Destination.ServiceSubset',
    'XA0004 service-splitter/api Splits[0].ServiceSubset',
    'XA0003 terminating-gateway/term Services[1].Name',
  ]);
});

test('XA0005: split weights not adding up to 100, negative or not numbers', () => {
  const split = (...weights: unknown[]) => ({
    Kind: 'service-splitter',
    Name: 'web',
    Splits: weights.map((Weight, i) => ({ Weight, Service: i ? 'api' : 'web' })),
  });
  assert.deepEqual(codes(replacing('service-splitter', 'web', split(60, 30))), ['XA0005 service-splitter/web Splits']);
  assert.deepEqual(codes(replacing('service-splitter', 'web', split(110, -10))), [
    'XA0005 service-splitter/web Splits[0].Weight',
    'XA0005 service-splitter/web Splits[1].Weight',
  ]);
  assert.deepEqual(codes(replacing('service-splitter', 'web', split('50', 50))), [
    'XA0005 service-splitter/web Splits[0].Weight',
  ]);
  assert.match(analyze(replacing('service-splitter', 'web', split(60, 30))).findings[0]!.message, /add up to 90/);
});

test('XA0006: intentions naming unknown destinations or sources (not *, not peers)', () => {
  assert.deepEqual(
    codes(
      replacing('service-intentions', 'api', {
        Kind: 'service-intentions',
        Name: 'ap1',
        Sources: [
          { Name: 'web', Action: 'allow' },
          { Name: 'wbe', Action: 'deny' },
          { Name: '*', Action: 'deny' },
        ],
      }),
    ),
    ['XA0006 service-intentions/ap1 Name', 'XA0006 service-intentions/ap1 Sources[1].Name'],
  );
});

test('XA0007: a route after one that matches everything it would is shadowed; narrower or different ones are not', () => {
  const routes = (...matches: (Record<string, unknown> | undefined)[]) => ({
    Kind: 'service-router',
    Name: 'web',
    Routes: matches.map((m) => ({ ...(m ? { Match: { HTTP: m } } : {}), Destination: { Service: 'api' } })),
  });
  const shadowed = (...matches: (Record<string, unknown> | undefined)[]) =>
    analyze(replacing('service-router', 'web', routes(...matches)))
      .findings.filter((f) => f.code === 'XA0007')
      .map((f) => f.field);
  assert.deepEqual(shadowed({ PathPrefix: '/api' }, { PathPrefix: '/api/v1' }, { PathExact: '/api' }), [
    'Routes[1].Match',
    'Routes[2].Match',
  ]);
  assert.deepEqual(
    shadowed(undefined, { PathPrefix: '/x' }),
    ['Routes[1].Match'],
    'a route without a match takes everything',
  );
  assert.deepEqual(shadowed({ PathPrefix: '/' }, { Header: [{ Name: 'h', Exact: 'x' }] }), ['Routes[1].Match']);
  assert.deepEqual(shadowed({ PathPrefix: '/a', Methods: ['GET', 'POST'] }, { PathPrefix: '/a/b', Methods: ['GET'] }), [
    'Routes[1].Match',
  ]);
  assert.deepEqual(
    shadowed(
      { PathPrefix: '/a', Header: [{ Name: 'h', Exact: 'x' }] },
      {
        PathPrefix: '/a/b',
        Header: [
          { Exact: 'x', Name: 'h' },
          { Name: 'g', Present: true },
        ],
      },
    ),
    ['Routes[1].Match'],
  );
  // Not shadowed: the later route is the wider one, or takes what the earlier does not.
  assert.deepEqual(shadowed({ PathPrefix: '/api/v1' }, { PathPrefix: '/api' }), []);
  assert.deepEqual(shadowed({ PathPrefix: '/a', Header: [{ Name: 'h', Exact: 'x' }] }, { PathPrefix: '/a' }), []);
  assert.deepEqual(
    shadowed({ PathPrefix: '/a', Methods: ['GET'] }, { PathPrefix: '/a', Methods: ['GET', 'POST'] }),
    [],
  );
  assert.deepEqual(shadowed({ PathPrefix: '/a' }, { PathPrefix: '/A/b', CaseInsensitive: true }), []);
  assert.deepEqual(shadowed({ PathPrefix: '/A', CaseInsensitive: true }, { PathPrefix: '/a/b' }), ['Routes[1].Match']);
  assert.deepEqual(shadowed({ PathRegex: '/a.*' }, { PathPrefix: '/a' }), [], 'a regex covers only the same regex');
});

test("XA0008: entries and registrations the hub's write would refuse; XA0009: a chain on a tcp service", () => {
  assert.deepEqual(codes({ ...CLEAN, registrations: [{ Node: 'n2', Service: { Service: 'x' } }] }), [
    'XA0008 registration/n2/x Address',
  ]);
  assert.deepEqual(codes(withEntries({ Kind: 'service-resolver', Name: 'admin', DefaultSubset: 'nope' })), [
    'XA0008 service-resolver/admin DefaultSubset',
  ]);
  assert.deepEqual(
    codes(withEntries({ Kind: 'service-router', Name: 'admin', Routes: [{ Match: { HTTP: { PathPrefix: '/a' } } }] })),
    ['XA0009 service-router/admin Name'],
  );
});

test("every finding carries its code's severity and hint; errors and warnings are counted", () => {
  const report = analyze(
    withEntries(
      { Kind: 'service-intentions', Name: 'nobody', Sources: [{ Name: 'web', Action: 'allow' }] },
      { Kind: 'service-splitter', Name: 'web2', Splits: [{ Weight: 1, Service: 'web' }] },
    ),
  );
  assert.equal(report.errors, 2); // XA0005 and XA0009 (web2 has no protocol)
  assert.equal(report.warnings, 1);
  for (const f of report.findings) {
    assert.equal(f.severity, CODES[f.code].severity);
    assert.equal(f.hint, CODES[f.code].hint);
  }
  assert.equal(report.findings[0]!.severity, 'error', 'errors first');
});

test('documents: JSON objects and lists, HCL with top-level blocks, entries told from registrations', async () => {
  const hcl =
    'Kind = "service-router"\nName = "web"\nMeta { team = "a" }\nRoutes = [{ Match = { HTTP = { PathPrefix = "/a" } } }]\n';
  const fromHcl = await parseDocuments('router.hcl', hcl);
  assert.deepEqual(fromHcl.entries, [
    { Kind: 'service-router', Name: 'web', Meta: { team: 'a' }, Routes: [{ Match: { HTTP: { PathPrefix: '/a' } } }] },
  ]);
  const fromJson = await parseDocuments('all.json', JSON.stringify([{ kind: 'mesh' }, { Node: 'n', Address: 'a' }]));
  assert.equal(fromJson.entries[0]!['Kind'], 'mesh');
  assert.equal(fromJson.registrations.length, 1);
  await assert.rejects(parseDocuments('x.json', '[1]'), /x\.json\[0\]: not an object/);
  await assert.rejects(parseDocuments('x.json', '{"Foo": 1}'), /neither a config entry/);
  await assert.rejects(parseDocuments('x.hcl', 'Kind = '), /x\.hcl/);
});
