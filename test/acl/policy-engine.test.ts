// Rules parsing (HCL through HashiCorp's parser, Consul's JSON form) and the
// policy engine's precedence: exact > longest prefix > default; deny > write >
// read across policies; default allow never grants ACL management.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAuthorizer, mergeRules } from '../../src/acl/authorizer';
import { parseRules } from '../../src/acl/rules';
import { isHubError } from '../../src/errors';

const authz = async (rules: string | string[], defaultPolicy: 'allow' | 'deny' = 'deny') => {
  const list = await Promise.all((Array.isArray(rules) ? rules : [rules]).map(parseRules));
  return createAuthorizer(mergeRules(list), { accessorId: 'a', defaultPolicy });
};

test('HCL and JSON rules parse to the same rules', async () => {
  const hcl = `
service "web" {
  policy = "write"
  intentions = "read"
}
service_prefix "" { policy = "read" }
node_prefix "n-" { policy = "read" }
operator = "read"
mesh = "write"
acl = "read"
key_prefix "" { policy = "list" }
`;
  const json = JSON.stringify({
    service: { web: { policy: 'write', intentions: 'read' } },
    service_prefix: [{ '': [{ policy: 'read' }] }],
    node_prefix: { 'n-': [{ policy: 'read' }] },
    operator: 'read',
    mesh: 'write',
    acl: 'read',
    key_prefix: { '': { policy: 'list' } },
  });
  const a = await parseRules(hcl);
  const b = await parseRules(json);
  assert.deepEqual(a, b);
  assert.deepEqual(a.service, { web: 'write' });
  assert.deepEqual(a.intentions, { web: 'read' });
  assert.deepEqual(a.node_prefix, { 'n-': 'read' });
  assert.equal(a.operator, 'read');
  assert.deepEqual(a.other.key_prefix, { '': 'list' });
});

test('bad rules are INVALID_ARGUMENT naming Rules, with the reason', async () => {
  const cases: Array<[string, RegExp]> = [
    ['service "web" { policy = ', /Failed to parse ACL rules: .*rules\.hcl:1/],
    ['service "web" { policy = "admin" }', /Invalid service "web" policy: "admin"/],
    ['operator = "all"', /Invalid operator policy/],
    ['kv "x" { policy = "read" }', /unknown rule kind "kv"/],
    ['service "web" { policy = "read" sentinel = "x" }', /.+/],
    ['service "web" {\n policy = "read"\n sentinel { code = "x" }\n}', /unsupported field "sentinel"/],
    ['{"service": 3}', /service: expected blocks/],
    ['{"service": ', /Failed to parse ACL rules/],
    // Nesting the HCL parser could abort the process on (src/acl/rules.ts, MAX_RULES_NESTING) never reaches it.
    [`a = ${'['.repeat(5000)}${']'.repeat(5000)}`, /Rules are nested deeper than 64 levels/],
    [`a = ${'['.repeat(65)}${']'.repeat(65)}`, /Rules are nested deeper than 64 levels/],
    [`a = ${'['.repeat(64)}${']'.repeat(64)}`, /unknown rule kind "a"/],
    ['x'.repeat(200 * 1024), /longer than/],
  ];
  for (const [text, reason] of cases) {
    await assert.rejects(
      parseRules(text),
      (err: unknown) => isHubError(err, 'INVALID_ARGUMENT') && err.field === 'Rules' && reason.test(err.message),
      text.slice(0, 60),
    );
  }
  assert.deepEqual((await parseRules('operator = "read"')).operator, 'read');
  // Brackets inside a quoted name are not nesting.
  assert.deepEqual((await parseRules(`service "${'['.repeat(100)}\\"x" { policy = "read" }`)).service, {
    [`${'['.repeat(100)}"x`]: 'read',
  });
});

test('exact beats prefix, the longest prefix wins, and what no rule covers falls to the default', async () => {
  const a = await authz(`
service_prefix "" { policy = "read" }
service_prefix "api" { policy = "write" }
service_prefix "api-internal" { policy = "deny" }
service "api-internal-ok" { policy = "read" }
`);
  assert.equal(a.allowed('service', 'read', 'web'), true);
  assert.equal(a.allowed('service', 'write', 'web'), false);
  assert.equal(a.allowed('service', 'write', 'api-gw'), true);
  assert.equal(a.allowed('service', 'read', 'api-internal-x'), false);
  assert.equal(a.allowed('service', 'read', 'api-internal-ok'), true);
  assert.equal(a.allowed('service', 'write', 'api-internal-ok'), false);
  assert.equal(a.allowed('node', 'read', 'n1'), false, 'no node rule, default deny');
  assert.equal(a.allowed('operator', 'read'), false);
});

test('rules on one name from several policies merge: deny > write > read', async () => {
  const a = await authz(['service "web" { policy = "read" }', 'service "web" { policy = "write" }']);
  assert.equal(a.allowed('service', 'write', 'web'), true);
  const b = await authz([
    'service "web" { policy = "write" }',
    'service "web" { policy = "deny" }',
    'operator = "write"',
    'operator = "read"',
  ]);
  assert.equal(b.allowed('service', 'read', 'web'), false);
  assert.equal(b.allowed('operator', 'write'), true);
});

test('default allow grants everything but ACL management; deny grants nothing', async () => {
  const allow = await authz('', 'allow');
  assert.equal(allow.allowed('service', 'write', 'x'), true);
  assert.equal(allow.allowed('operator', 'write'), true);
  assert.equal(allow.allowed('acl', 'read'), false);
  const explicit = await authz('service "x" { policy = "deny" }', 'allow');
  assert.equal(explicit.allowed('service', 'read', 'x'), false);
  const deny = await authz('', 'deny');
  assert.equal(deny.allowed('service', 'read', 'x'), false);
});

test('mesh falls back to operator; intentions fall back to the service rule (read, or deny)', async () => {
  const a = await authz('operator = "write"\nservice "web" { policy = "write" }\nservice "db" { policy = "deny" }');
  assert.equal(a.allowed('mesh', 'write'), true);
  assert.equal(a.allowed('intention', 'read', 'web'), true);
  assert.equal(a.allowed('intention', 'write', 'web'), false);
  assert.equal(a.allowed('intention', 'read', 'db'), false);
  const b = await authz(
    'service "web" {\n policy = "read"\n intentions = "write"\n}\nmesh = "read"\noperator = "write"',
  );
  assert.equal(b.allowed('intention', 'write', 'web'), true);
  assert.equal(b.allowed('mesh', 'write'), false);
});
