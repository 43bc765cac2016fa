// The known differences from Consul (consul-differences.ts) are what docs/consul-differences.md
// lists, name steps the oracle's script has, and are not listed twice.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../helpers/hub';
import { CAUSES, diffKey, KNOWN_DIFFERENCES, renderTable } from './consul-differences';
import { READS, stepName, WRITES } from './consul-oracle-script';
import { KNOWN_XDS_DIFFERENCES, renderXdsTable, XDS_CAUSES } from './consul-xds-differences';

test('docs/consul-differences.md carries the table of every known difference', () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'consul-differences.md'), 'utf8');
  assert.ok(doc.includes(renderTable()), 'regenerate the table: npx tsx test/hub/consul-differences.ts');
  for (const d of KNOWN_DIFFERENCES) {
    assert.ok(doc.includes(`\`${d.request}\`: \`${d.path}\``), diffKey(d.request, d.path));
  }
});

test('every known difference names a step of the script, once, under a cause that explains something', () => {
  const names = [...WRITES, ...READS].map(stepName);
  const steps = new Set(names);
  assert.equal(steps.size, names.length, 'two steps share a name');
  const keys = KNOWN_DIFFERENCES.map((d) => diffKey(d.request, d.path));
  assert.deepEqual(
    keys.filter((k, i) => keys.indexOf(k) !== i),
    [],
    'listed twice',
  );
  assert.deepEqual(
    KNOWN_DIFFERENCES.filter((d) => !steps.has(d.request)).map((d) => d.request),
    [],
    'not a step',
  );
  const unused = Object.keys(CAUSES).filter((c) => !KNOWN_DIFFERENCES.some((d) => d.cause === c));
  assert.deepEqual(unused, [], 'causes without differences');
});

test('docs/consul-differences.md carries the xDS table; every xDS difference is listed once, under a used cause', () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'consul-differences.md'), 'utf8');
  assert.ok(doc.includes(renderXdsTable()), 'regenerate the table: npx tsx test/hub/consul-xds-differences.ts');
  const keys = KNOWN_XDS_DIFFERENCES.map((d) => diffKey(d.resource, d.path));
  assert.deepEqual(
    keys.filter((k, i) => keys.indexOf(k) !== i),
    [],
    'listed twice',
  );
  const unused = Object.keys(XDS_CAUSES).filter((c) => !KNOWN_XDS_DIFFERENCES.some((d) => d.cause === c));
  assert.deepEqual(unused, [], 'causes without differences');
});
