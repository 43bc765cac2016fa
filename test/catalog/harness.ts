// A state machine plus a counter, so tests read as a sequence of log entries.

import type { Command } from '../../src/catalog/commands';
import { type Applied, createStateMachine, type StateMachine } from '../../src/catalog/state';
import { type CatalogEvent, Topic } from '../../src/catalog/types';

export interface Harness {
  sm: StateMachine;
  apply(cmd: Command): Applied;
}

export function harness(): Harness {
  const sm = createStateMachine();
  let index = 0n;
  return { sm, apply: (cmd) => sm.apply(++index, cmd) };
}

/** A compact view of events for assertions: "topic subject op name@node". */
export function eventLines(events: readonly CatalogEvent[]): string[] {
  return events.map((e) => {
    const topic = Topic[e.topic];
    const p = e.payload;
    if (p.type === 'service-health') return `${topic} ${e.subject} ${p.op} ${p.csn.Service.ID}@${p.csn.Node.Node}`;
    if (p.type === 'config-entry') return `${topic} ${e.subject} ${p.op}`;
    return `${topic} ${e.subject} ${p.op} ${p.name}`;
  });
}
