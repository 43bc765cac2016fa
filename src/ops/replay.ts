// The catalog as it was at log index N, rebuilt from the log: the newest
// snapshot at or below N (or the start of the log), then every entry up to N,
// folded by a fresh state machine. Apply is deterministic (docs/catalog.md), so
// this is the state the hub had at N. Nothing live is read or changed.
import type { Command } from '../catalog/commands';
import { createStateMachine, type StateMachine } from '../catalog/state';
import { HubError, invalid } from '../errors';
import type { Log } from '../log/log';

const PAGE = 1_000;

/** Parses an index query value (a decimal log index ≥ 1). */
export function parseIndex(text: string | undefined, field: string): bigint {
  if (text === undefined || !/^\d{1,19}$/.test(text) || BigInt(text) < 1n)
    throw invalid(field, `expected a log index (a whole number ≥ 1), got "${text ?? ''}"`);
  return BigInt(text);
}

/** Applies one log payload as the catalog does: an unparseable one is refused by apply, as on every replica. */
export function applyPayload(sm: StateMachine, index: bigint, payload: string): void {
  let command: Command;
  try {
    command = JSON.parse(payload) as Command;
  } catch {
    command = { type: 'unparseable' } as unknown as Command;
  }
  sm.apply(index, command);
}

export async function stateAt(log: Log, index: bigint): Promise<StateMachine> {
  const last = await log.lastIndex();
  if (index > last)
    throw new HubError('NOT_FOUND', `index ${index} is beyond the last log index ${last}`, { field: 'index' });
  const sm = createStateMachine();
  const snapshot = await log.loadSnapshot();
  const first = await log.firstIndex();
  if (snapshot && snapshot.index <= index && snapshot.index + 1n >= first) sm.restore(snapshot.state);
  else if (first > 1n) {
    throw new HubError(
      'LOG_COMPACTED',
      `index ${index} can no longer be rebuilt: the log keeps entries from ${first} and a snapshot at ${snapshot?.index ?? 'none'}`,
      { field: 'index' },
    );
  }
  let from = sm.lastIndex() + 1n;
  while (from <= index) {
    const page = await log.read(from, PAGE);
    if (page.length === 0) break;
    for (const e of page) {
      if (e.index > index) return sm;
      applyPayload(sm, e.index, e.payload);
    }
    from = page[page.length - 1]!.index + 1n;
  }
  return sm;
}
