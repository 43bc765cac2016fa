// A submit's own write is parsed once: its check runs on the payload's parse, and
// the entry with that text is applied from it (docs/catalog.md, "An own write is
// parsed once"). This keeps those parses while their submits are in flight.
import type { Command } from './commands';

/**
 * Commands whose checks and applies write into their own objects only by stamping
 * indexes (catalog-ops.ts `stamp`). ACL, CA and restore entries are always parsed.
 */
const SHARED_TYPES: ReadonlySet<string> = new Set([
  'register',
  'deregister',
  'check-update',
  'check-ttl-expire',
  'config-set',
  'config-delete',
  'txn',
]);

/**
 * Longest payload whose checked parse is applied as its entry. A parse the check
 * stamped carries CreateIndex/ModifyIndex in its objects; apply's size limit must
 * never see them, and it does not look at an object's text while the object's
 * jsonLengthBound (at most 25 per character of JSON: a one-digit number) stays within
 * a third of MAX_OBJECT_BYTES (catalog-ops.ts `storable`): 4,096 characters and the
 * two stamps keep every object of the command far inside that, on every hub alike.
 */
const SHARED_MAX_CHARS = 4_096;

export interface CheckedParses {
  /** Whether `command`, written as `payload`, may be checked on its parse and applied from it. */
  eligible(command: Command, payload: string): boolean;
  /** Keeps the checked parse of an entry about to be appended. */
  keep(payload: string, parse: Command): void;
  /** The kept parse for an entry with this text, taken out (each is applied at most once). */
  take(payload: string): Command | undefined;
  /** The submit ended (applied here or not): its parse, if still kept, is dropped. */
  drop(payload: string, parse: Command): void;
}

/**
 * Keyed by text, not by index (the tail may hand an entry out before its append
 * learns the index): an entry with the same text, whoever appended it, is the same
 * command, so applying it from the kept parse gives what its text gives.
 */
export function createCheckedParses(): CheckedParses {
  const kept = new Map<string, Command>();
  return {
    eligible: (command, payload) => SHARED_TYPES.has(command.type) && payload.length <= SHARED_MAX_CHARS,
    keep(payload, parse) {
      kept.set(payload, parse);
    },
    take(payload) {
      if (kept.size === 0) return undefined;
      const parse = kept.get(payload);
      if (parse !== undefined) kept.delete(payload);
      return parse;
    },
    drop(payload, parse) {
      if (kept.get(payload) === parse) kept.delete(payload);
    },
  };
}
