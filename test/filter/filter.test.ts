// The filter language on its own: every operator matches and fails to match
// the way go-bexpr does, and every way a filter can be wrong is refused with
// Consul's text before any data is looked at.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isHubError } from '../../src/errors';
import { CHECK_SERVICE_NODE_FIELDS, compileFilter, HEALTH_CHECK_FIELDS, parseFilter } from '../../src/filter/index';

const web = {
  Node: {
    ID: '',
    Node: 'n1',
    Address: '10.0.0.1',
    Datacenter: 'dc1',
    TaggedAddresses: {},
    Meta: { env: 'prod', 'rack-id': 'r1' },
  },
  Service: {
    Kind: '',
    ID: 'web-1',
    Service: 'web',
    Tags: ['v1', 'blue'],
    Address: '',
    Meta: {},
    Port: 80,
    TaggedAddresses: { lan: { Address: '10.0.0.1', Port: 8080 } },
    Weights: { Passing: 1, Warning: 1 },
    EnableTagOverride: false,
  },
  Checks: [
    { CheckID: 'a', Status: 'passing', ServiceTags: ['v1'] },
    { CheckID: 'b', Status: 'critical', ServiceTags: [] },
  ],
};
const bare = {
  Node: { Node: 'n2', Meta: {} },
  Service: { ID: 'web-2', Service: 'web', Tags: [], Meta: {}, Port: 81, TaggedAddresses: {}, EnableTagOverride: true },
  Checks: [],
};

function run(expr: string): [boolean, boolean] {
  const p = compileFilter(expr, CHECK_SERVICE_NODE_FIELDS);
  return [p(web), p(bare)];
}

function refused(expr: string, message: RegExp | string): void {
  assert.throws(
    () => compileFilter(expr, CHECK_SERVICE_NODE_FIELDS),
    (err: unknown) => {
      assert.ok(isHubError(err, 'INVALID_ARGUMENT'), String(err));
      assert.equal(err.httpStatus, 400);
      const text = `Failed to create boolean expression evaluator: `;
      assert.ok(err.message.startsWith(text), err.message);
      if (typeof message === 'string') assert.equal(err.message.slice(text.length), message);
      else assert.match(err.message, message);
      return true;
    },
    expr,
  );
}

test('== and != on strings, ints and bools (values read as the field type)', () => {
  assert.deepEqual(run('Service.Port == 80'), [true, false]);
  assert.deepEqual(run('Service.Port=="0x50"'), [true, false]);
  assert.deepEqual(run('Service.Port != 80'), [false, true]);
  assert.deepEqual(run('Service.ID == "web-2"'), [false, true]);
  assert.deepEqual(run('Service.Service == web'), [true, true]);
  assert.deepEqual(run('Service.EnableTagOverride == true'), [false, true]);
  assert.deepEqual(run('Service.EnableTagOverride != T'), [true, false]);
  refused(
    'Service.Port == abc',
    'Failed to coerce value "abc" for selector "Service.Port": strconv.ParseInt: parsing "abc": invalid syntax',
  );
  refused('Service.Port == 1.5', /Failed to coerce value "1.5"/);
  refused('Service.EnableTagOverride == yes', /strconv.ParseBool: parsing "yes": invalid syntax/);
  refused('Service.Tags == v1', 'Invalid match operator "Equal" for selector "Service.Tags"');
});

test('in / not in / contains / not contains: list membership, map keys, substrings', () => {
  assert.deepEqual(run('v1 in Service.Tags'), [true, false]);
  assert.deepEqual(run('Service.Tags contains blue'), [true, false]);
  assert.deepEqual(run('"v1" not in Service.Tags'), [false, true]);
  assert.deepEqual(run('Service.Tags not contains `blue`'), [false, true]);
  assert.deepEqual(run('env in Node.Meta'), [true, false]);
  assert.deepEqual(run('Node.Meta not contains env'), [false, true]);
  assert.deepEqual(run('"eb-" in Service.ID'), [true, true]);
  assert.deepEqual(run('Service.ID contains "-1"'), [true, false]);
  refused('80 in Service.Port', 'Invalid match operator "In" for selector "Service.Port"');
  refused('Checks contains a', 'Invalid match operator "In" for selector "Checks"');
  refused('x in 5', '1:1 (0): rule "match": Invalid selector');
});

test('is empty / is not empty on lists, maps and lists of structs', () => {
  assert.deepEqual(run('Service.Tags is empty'), [false, true]);
  assert.deepEqual(run('Node.Meta is not empty'), [true, false]);
  assert.deepEqual(run('Checks is empty'), [false, true]);
  assert.deepEqual(run('Service.TaggedAddresses is not empty'), [true, false]);
  refused('Service.ID is empty', 'Invalid match operator "Is Empty" for selector "Service.ID"');
  refused('Service is not empty', 'Invalid match operator "Is Not Empty" for selector "Service"');
});

test('matches / not matches: regular expressions, unanchored, Go inline flags', () => {
  assert.deepEqual(run('Service.ID matches "-1$"'), [true, false]);
  assert.deepEqual(run('Service.ID not matches "^web-[0-9]$"'), [false, false]);
  assert.deepEqual(run('Node.Node matches `(?i)^N1`'), [true, false]);
  assert.deepEqual(run('Node.Meta.env matches prod'), [true, false]);
  refused('Service.ID matches "("', /: Failed to compile regular expression "\(": /);
  refused('Service.Port matches "8"', 'Invalid match operator "Matches" for selector "Service.Port"');
});

test('and, or, not and parentheses, with not binding tighter than and, and tighter than or', () => {
  assert.deepEqual(run('Service.Port == 80 and v1 in Service.Tags'), [true, false]);
  assert.deepEqual(run('Service.Port == 81 or v1 in Service.Tags'), [true, true]);
  assert.deepEqual(run('not Service.Port == 80'), [false, true]);
  assert.deepEqual(run('not not Service.Port == 80'), [true, false]);
  assert.deepEqual(run('Service.Port == 81 or Service.Port == 80 and Node.Node == n2'), [false, true]);
  assert.deepEqual(run('(Service.Port == 81 or Service.Port == 80) and Node.Node == n2'), [false, true]);
  assert.deepEqual(run('not (Service.Port == 81 or Node.Node == n1)'), [false, false]);
  assert.deepEqual(run('( Service.Port == 80 )'), [true, false]);
  refused('(Service.Port == 80', '1:1 (0): rule "grouping": Unmatched parentheses');
  refused('Service.Port == 80 and', '1:23 (22): no match found, expected: [ \\t\\r\\n]');
  refused('Service.Port == 80 or or Node.Node == n1', /^Failed to create boolean expression evaluator: 1:/);
});

test('selectors: nested fields, map keys by dot and by ["key"], any element of a list of structs', () => {
  assert.deepEqual(run('Node.Meta["rack-id"] == r1'), [true, false]);
  assert.deepEqual(run('Service.TaggedAddresses.lan.Port == 8080'), [true, false]);
  assert.deepEqual(run('Checks.Status == critical'), [true, false]);
  assert.deepEqual(run('Checks.Status != passing'), [true, false]);
  assert.deepEqual(run('v1 in Checks.ServiceTags'), [true, false]);
  // A key missing from a map: only the negative operators hold.
  assert.deepEqual(run('Node.Meta.missing == x'), [false, false]);
  assert.deepEqual(run('Node.Meta.missing != x'), [true, true]);
  assert.deepEqual(run('Node.Meta.missing matches x'), [false, false]);
  refused('Service.Foo == 1', 'Selector "Service.Foo" is not valid');
  refused('Nodes.Node == n1', 'Selector "Nodes" is not valid');
  refused('Service.Port.Number == 1', 'Selector "Service.Port.Number" is not valid');
  refused('Node.Meta[1] == 2', '1:10 (9): rule "index": Invalid index');
  refused('Node.Meta["a" == 2', '1:10 (9): rule "index": Unclosed index expression');
});

test('syntax errors carry go-bexpr position and expectations', () => {
  // The text Consul answers for ?filter=foo.
  refused('foo', '1:4 (3): no match found, expected: "!=", ".", "==", "[", [ \\t\\r\\n] or [a-zA-Z0-9_]');
  refused('Service.ID == "web', '1:15 (14): rule "string": Unterminated string literal');
  refused('Service.Port == 80x', '1:17 (16): rule "number": Invalid number literal');
  refused('Service.ID == "a\\qb"', /rule "string": invalid syntax/);
  // Deep nesting parses in linear time (the parser memoizes).
  const deep = `${'('.repeat(200)}Service.Port == 80${')'.repeat(200)}`;
  assert.deepEqual(run(deep), [true, false]);
});

test('strings: Go escapes in "…", nothing escaped in `…`', () => {
  assert.deepEqual(parseFilter('Name == "a\\tb\\u00e9"'), {
    type: 'match',
    selector: ['Name'],
    op: 'equal',
    value: 'a\tbé',
  });
  assert.deepEqual(parseFilter('Name == `a\\tb`'), { type: 'match', selector: ['Name'], op: 'equal', value: 'a\\tb' });
  const p = compileFilter('Output contains "TTL expired"', HEALTH_CHECK_FIELDS);
  assert.equal(p({ Output: 'TTL expired (last output)' }), true);
});
