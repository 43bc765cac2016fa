// XA0005: a service-splitter whose weights cannot make 100% — a weight that is
// not a number from 0 to 100, or a total other than 100 (to two decimals, as
// Consul keeps them).
import { type Finding, finding } from './codes';
import { entryId, type Json, objects } from './fields';

export function checkSplitWeights(e: Json): Finding[] {
  if (e['Kind'] !== 'service-splitter') return [];
  const id = entryId(e);
  const out: Finding[] = [];
  let total = 0;
  const splits = objects(e, 'Splits');
  for (const s of splits) {
    const w = s.value['Weight'];
    if (typeof w !== 'number' || !Number.isFinite(w) || w < 0 || w > 100) {
      const what = `weight ${JSON.stringify(w ?? null)} is not a number from 0 to 100`;
      out.push(finding('XA0005', id, `${s.field}.Weight`, what));
    } else total += w;
  }
  if (out.length === 0 && splits.length > 0 && Math.round(total * 100) !== 10_000) {
    out.push(finding('XA0005', id, 'Splits', `weights add up to ${Math.round(total * 100) / 100}, not 100`));
  }
  return out;
}
