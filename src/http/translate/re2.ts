// RE2's syntax, as Envoy (`safe_regex`, Google RE2) and grpc-js-xds (RE2
// compiled to WebAssembly) parse it: a regex either of them rejects makes the
// client NACK the whole resource (grpc-js-xds 1.14 throws out of its resource
// handler). re2js is a port of RE2's parser, so the hub can refuse such a
// regex when it is written (docs/http-api.md, "Config entries", Regexes). One
// known difference: re2js, like Go, refuses `\C` (any byte), which C++ RE2
// takes: the hub refuses it too.
import { RE2JS } from 're2js';
import { invalid } from '../../errors';
import type { Body } from '../body';

/** Why RE2 would reject `pattern`, or undefined when it parses. */
export function re2Problem(pattern: string): string | undefined {
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (err) {
    const message = (err as Error).message.replace(/^error parsing regexp: /, '');
    return `not a valid RE2 regex (Envoy and gRPC clients would reject it): ${message}`;
  }
}

/**
 * The size of the compiled program, as re2js counts it (undefined when the
 * regex does not parse). Envoy refuses a regex whose C++ RE2 program is over
 * 100 instructions by default (the runtime key `re2.max_program_size.error_level`);
 * C++ RE2 counts at least as many as re2js on the patterns measured, so a count
 * over the limit here is over it there.
 */
export function re2ProgramSize(pattern: string): number | undefined {
  try {
    const compiled = RE2JS.compile(pattern) as unknown as { re2Input: { prog: { numInst(): number } } };
    return compiled.re2Input.prog.numInst();
  } catch {
    return undefined;
  }
}

/** Envoy's default limit on a regex's program size (`re2.max_program_size.error_level`). */
export const ENVOY_MAX_PROGRAM_SIZE = 100;

/** A string field holding a regex: refused (400 naming it) when RE2 rejects it; `required`: also when empty. */
export function regexField(body: Body, name: string, required = false): string {
  const v = body.str(name);
  if (v === '') {
    // Envoy's RegexMatcher.regex has min_len 1: an empty regex is a NACK.
    if (required) throw invalid(body.field(name), 'a regex match needs a regex');
    return v;
  }
  const bad = re2Problem(v);
  if (bad) throw invalid(body.field(name), bad);
  return v;
}
