// Every finding `xdshub analyze` reports, by stable code (docs/analyze.md):
// how bad it is and what to do about it. Codes are never reused or renumbered.

export type Severity = 'error' | 'warning';

export interface CodeSpec {
  severity: Severity;
  title: string;
  hint: string;
}

export const CODES = {
  XA0001: {
    severity: 'error',
    title: 'regex RE2 rejects',
    hint:
      'RE2 has no lookarounds, backreferences or possessive quantifiers; rewrite the regex without them ' +
      '(Envoy and grpc-js-xds would reject the whole resource; the hub refuses the write)',
  },
  XA0002: {
    severity: 'warning',
    title: "regex over Envoy's program size limit",
    hint:
      'Envoy refuses a regex whose RE2 program is over 100 instructions by default ' +
      '(runtime key re2.max_program_size.error_level): shorten large repeat counts or use a prefix match',
  },
  XA0003: {
    severity: 'error',
    title: 'route, split or gateway to a service that does not exist',
    hint: 'register the service, or fix the name: requests routed there get no endpoints (503)',
  },
  XA0004: {
    severity: 'error',
    title: 'route or split to a subset its service does not define',
    hint: "define the subset in the target service's service-resolver Subsets, or fix the name",
  },
  XA0005: {
    severity: 'error',
    title: 'split weights that cannot make 100%',
    hint: 'give each split a Weight from 0 to 100, together exactly 100 (to two decimals)',
  },
  XA0006: {
    severity: 'warning',
    title: 'intention naming a service that does not exist',
    hint: 'fix the name, or register the service: an intention for an unknown service protects nothing',
  },
  XA0007: {
    severity: 'warning',
    title: 'route that can never match',
    hint: 'an earlier route matches every request this one would: move it before that route, or narrow the earlier one',
  },
  XA0008: {
    severity: 'error',
    title: 'entry or registration the hub refuses',
    hint: 'the hub answers this write with 400: fix the field named',
  },
  XA0009: {
    severity: 'error',
    title: 'discovery chain on a tcp service',
    hint:
      "a service-router or service-splitter needs its service's service-defaults Protocol " +
      'to be http, http2 or grpc',
  },
} as const satisfies Record<string, CodeSpec>;

export type Code = keyof typeof CODES;

export interface Finding {
  code: Code;
  severity: Severity;
  /** `kind/name` of the config entry, or `registration/<node>/<service>`. */
  entry: string;
  /** Consul field path inside it, e.g. `Routes[0].Match.HTTP.PathRegex`. */
  field?: string;
  message: string;
  hint: string;
}

export function finding(code: Code, entry: string, field: string | undefined, message: string): Finding {
  const spec = CODES[code];
  return { code, severity: spec.severity, entry, ...(field ? { field } : {}), message, hint: spec.hint };
}
