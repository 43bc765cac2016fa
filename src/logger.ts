// The hub's root logger: JSON lines on stderr, so stdout stays free for the
// one startup line that scripts (and the durability test) parse.
import pino from 'pino';
import type { LogLevel } from './config';

export function createLogger(level: LogLevel): pino.Logger {
  return pino({ level, base: { pid: process.pid } }, pino.destination({ fd: 2, sync: false }));
}

/**
 * A module's logger: `parent` with `module` bound once. pino writes every
 * binding of every child into each line, so binding `module` again would put
 * the key twice in the JSON: a parent already bound to this module is used as
 * it is, and one bound to another module gets this name as `component`.
 */
export function moduleLogger<L extends Bindable>(parent: L, module: string): L {
  const bound = parent.bindings?.()['module'];
  if (bound === module) return parent;
  // A child of a logger has the same kind as its parent.
  return parent.child(bound === undefined ? { module } : { component: module }) as L;
}

/** What moduleLogger needs of a logger (pino's, or a test's). */
export interface Bindable {
  child(bindings: Record<string, unknown>): unknown;
  bindings?(): Record<string, unknown>;
}
