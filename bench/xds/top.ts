// Prints the top self-time functions of a .cpuprofile (bench/xds hub profile).
//   node --import tsx bench/xds/top.ts file.cpuprofile [count]
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}
const profile = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
};
const self = new Map<string, number>();
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const dt = new Map<number, number>();
profile.samples.forEach((id, i) => dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
let total = 0;
for (const [id, us] of dt) {
  const n = byId.get(id)!;
  const key = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/^.*node_modules\//, '~/').replace(/^.*\/work\/main\//, '')}:${n.callFrame.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + us);
  total += us;
}
const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 30));
console.log(`total ${(total / 1000).toFixed(0)} ms sampled`);
for (const [k, us] of top)
  console.log(`${(us / 1000).toFixed(1).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`);
