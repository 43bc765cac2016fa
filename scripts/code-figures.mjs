#!/usr/bin/env node
// Prints the code-shape figures docs/architecture.md keeps (docs/testing.md
// says how they are checked): functions over a length, lines over a width,
// docs over a length. A function's length is its whole span, nested closures
// included, so a factory is as long as everything it holds.
//
//   node scripts/code-figures.mjs [--max-fn 80] [--max-width 120] [--max-doc 400] [--list] [--json]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = join(import.meta.dirname, '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const maxFn = opt('--max-fn', 80);
const maxWidth = opt('--max-width', 120);
const maxDoc = opt('--max-doc', 400);

function walkFiles(dir, ext, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'gen' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walkFiles(path, ext, out);
    else if (name.endsWith(ext)) out.push(path);
  }
  return out;
}

function nameOf(node, sf) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (node.name) return node.name.getText(sf);
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(sf);
  return '(anonymous)';
}

/** Every function-like node with its span in lines. */
export function functionsOf(path) {
  const text = readFileSync(path, 'utf8');
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file: relative(root, path), line: start + 1, name: nameOf(node, sf), lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

export function figures() {
  const sources = walkFiles(join(root, 'src'), '.ts');
  const fns = sources.flatMap(functionsOf);
  const long = fns.filter((f) => f.lines > maxFn).sort((a, b) => b.lines - a.lines);
  let wide = 0;
  let lines = 0;
  for (const path of sources) {
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      lines++;
      if (line.length > maxWidth) wide++;
    }
  }
  const docs = walkFiles(join(root, 'docs'), '.md').map((path) => ({
    file: relative(root, path),
    lines: readFileSync(path, 'utf8').split('\n').length,
  }));
  return {
    files: sources.length,
    lines,
    functions: fns.length,
    longest: long[0]?.lines ?? Math.max(...fns.map((f) => f.lines)),
    overMaxFn: long,
    overMaxWidth: wide,
    docsOverMax: docs.filter((d) => d.lines > maxDoc),
    longestDoc: Math.max(...docs.map((d) => d.lines)),
  };
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) {
  const f = figures();
  if (args.includes('--json')) {
    console.log(JSON.stringify(f, null, 2));
  } else {
    console.log(`src: ${f.files} files, ${f.lines} lines, ${f.functions} functions`);
    console.log(`functions over ${maxFn} lines: ${f.overMaxFn.length} (longest ${f.longest})`);
    if (args.includes('--list'))
      for (const x of f.overMaxFn) console.log(`  ${x.lines}\t${x.file}:${x.line} ${x.name}`);
    console.log(`lines over ${maxWidth} characters: ${f.overMaxWidth}`);
    console.log(`docs over ${maxDoc} lines: ${f.docsOverMax.length} (longest ${f.longestDoc})`);
    if (args.includes('--list')) for (const d of f.docsOverMax) console.log(`  ${d.lines}\t${d.file}`);
  }
}
