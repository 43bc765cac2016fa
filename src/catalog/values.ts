// Value helpers for the state machine: inputs are normalised through JSON (the
// same shape a replayed log entry has, so direct apply and replay agree), then
// frozen, because readers and events share the stored objects.

/** A deep copy as the log would carry it: undefined fields dropped, key order kept. */
export function normalise<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * Whether `value` is exactly what a JSON round trip of it gives back: only strings,
 * booleans, null, finite numbers other than -0, dense arrays and plain objects
 * without toJSON. A JSON.parse result is, except for numbers JSON cannot hold
 * (1e400 parses to Infinity, which goes back as null; -0 as 0).
 */
export function sameThroughJson(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!(i in value) || !sameThroughJson(value[i])) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) {
        const v = (value as Record<string, unknown>)[key];
        if (key === 'toJSON' && typeof v === 'function') return false;
        if (Object.hasOwn(value, key) && !sameThroughJson(v)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/**
 * When `value` is exactly what a JSON round trip gives back (sameThroughJson), a bound
 * on the length of its JSON text: JSON.stringify(value).length is at most this. Else
 * undefined. Lets an apply of an entry's own parse check the size limit without
 * writing the text out. A string takes at most 6 characters per code unit (\uXXXX)
 * plus its quotes; a finite number at most 25 (the shortest round-trip form has at
 * most 17 significant digits: "-0.00000" and 17 digits is the longest, the exponent
 * form at most 24); true, false and null at most 5.
 */
export function jsonLengthBound(value: unknown): number | undefined {
  switch (typeof value) {
    case 'string':
      return 2 + 6 * value.length;
    case 'boolean':
      return 5;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0) ? 25 : undefined;
    case 'object': {
      if (value === null) return 4;
      if (Array.isArray(value)) {
        let n = 2 + value.length; // brackets and commas (one spare)
        for (let i = 0; i < value.length; i++) {
          if (!(i in value)) return undefined;
          const b = jsonLengthBound(value[i]);
          if (b === undefined) return undefined;
          n += b;
        }
        return n;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return undefined;
      let n = 2; // braces
      for (const key in value) {
        const v = (value as Record<string, unknown>)[key];
        if (key === 'toJSON' && typeof v === 'function') return undefined;
        if (!Object.hasOwn(value, key)) continue;
        const b = jsonLengthBound(v);
        if (b === undefined) return undefined;
        n += 2 + 6 * key.length + 2 + b; // quoted key, colon and comma
      }
      return n;
    }
    default:
      return undefined;
  }
}

/** Freezes the value and every object reachable through its own enumerable properties. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    // Walked without Object.values, which allocates an array per object: every stored
    // object is frozen at its apply, on every hub (~0.5 µs less per node and service).
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
    } else {
      for (const key in value) if (Object.hasOwn(value, key)) deepFreeze((value as Record<string, unknown>)[key]);
    }
  }
  return value;
}

/** Structural equality of JSON values; object key order does not matter. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  if (ak.length !== Object.keys(bo).length) return false;
  return ak.every((k) => Object.hasOwn(bo, k) && deepEqual(ao[k], bo[k]));
}

/** Equality of two catalog objects ignoring their CreateIndex/ModifyIndex. */
export function sameContent(stored: object, candidate: object): boolean {
  const { CreateIndex: _c1, ModifyIndex: _m1, ...a } = stored as Record<string, unknown>;
  const { CreateIndex: _c2, ModifyIndex: _m2, ...b } = candidate as Record<string, unknown>;
  return deepEqual(a, b);
}

/** Composite map key; NUL cannot appear in a stored name (apply refuses control characters, limits.ts). */
export function key2(a: string, b: string): string {
  return `${a}\u0000${b}`;
}

export function byString(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
