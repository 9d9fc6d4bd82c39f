import { nearestName } from './suggest';

/**
 * How options are checked: a wrong value is a `TypeError` that names the field (with where it was
 * given: `config.retry.` for a request's own options), says what is allowed and what it got (with its
 * type when the type is the mistake).
 */

/** An HTTP field name (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Where each code is explained: docs/errors.md, which the package ships. */
const DOCS = 'axios-resilience/docs/errors.md#';

/**
 * Throws the `TypeError` for a wrong option. Each call writes its words as
 * `process.env.NODE_ENV !== 'production' && \`...\``, inline, so a browser app's production build
 * drops them and its message is the field, the code and the code's entry in docs/errors.md; the Node
 * build (rollup.config.mjs) replaces that test with `true`, so a server's message always has its words.
 */
export function fail(where: string, field: string, code: string, problem: string | false): never {
  throw new TypeError(`axios-resilience: ${where}${field} ${problem || `${code}: see ${DOCS}${code}`}`);
}

/**
 * A value as an error message shows it: strings quoted (so `'3'` does not read as `3`), objects by
 * kind. Never throws (an object without a prototype has no toString).
 */
export function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'symbol') return value.toString();
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'function' ? 'a function' : 'an object';
}

/** The value with its type, for when the type is the mistake: `the string "3"`, `the boolean true`. */
export function typed(value: unknown): string {
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean' || type === 'bigint' || type === 'symbol') {
    return `the ${type} ${shown(value)}`;
  }
  return shown(value);
}

/** `value` as `shown` gives it when it has the type expected, else with its type. */
export function given(value: unknown, expected: 'number' | 'string'): string {
  return typeof value === expected ? shown(value) : typed(value);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Own enumerable keys only, so `__proto__` or `constructor` in JSON input is just an unknown name.
 * An unknown name gets the nearest known one as a suggestion, or else the list of known names;
 * `elsewhere` says where a name that is valid in another place belongs instead (read only for a
 * message, so a production build drops what it holds).
 */
export function checkKnown(
  where: string,
  value: Record<string, unknown>,
  known: ReadonlySet<string>,
  elsewhere: () => Record<string, string> = () => ({}),
): void {
  for (const key of Object.keys(value)) {
    if (known.has(key)) continue;
    fail(
      where,
      key,
      'E1',
      process.env.NODE_ENV !== 'production' &&
        ((own(elsewhere(), key) as string | undefined) ?? unknownName(key, known)),
    );
  }
}

/** "is not a known option", with the nearest known name or the list of them. */
export function unknownName(key: string, known: Iterable<string>, what = 'option'): string {
  const nearest = nearestName(key, known);
  if (nearest !== undefined) return `is not a known ${what}; did you mean ${nearest}?`;
  return `is not a known ${what}; known: ${[...known].join(', ')}`;
}

/** `value[key]` when it is the object's own; a prototype's (or `__proto__`) never counts. */
export function own(value: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined;
}

export function nonNegative(where: string, field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    fail(
      where,
      field,
      'E2',
      process.env.NODE_ENV !== 'production' && `must be a finite number >= 0, got ${given(value, 'number')}`,
    );
  }
  return value;
}

export function wholeNumber(where: string, field: string, value: unknown, fallback: number, min: number): number {
  const chosen = value ?? fallback;
  if (typeof chosen !== 'number' || !Number.isSafeInteger(chosen) || chosen < min) {
    fail(
      where,
      field,
      'E3',
      process.env.NODE_ENV !== 'production' && `must be a whole number >= ${min}, got ${given(chosen, 'number')}`,
    );
  }
  return chosen;
}

export function fn<T>(where: string, field: string, value: unknown, fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value !== 'function')
    fail(where, field, 'E4', process.env.NODE_ENV !== 'production' && `must be a function, got ${typed(value)}`);
  return value as T;
}

export function flag(where: string, field: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean')
    fail(where, field, 'E5', process.env.NODE_ENV !== 'production' && `must be true or false, got ${typed(value)}`);
  return value;
}

/** Header values must survive the wire: 1–255 printable ASCII characters, no CR/LF. */
export function validateKey(where: string, field: string, key: unknown): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > 255 || !/^[\x20-\x7e]+$/.test(key)) {
    fail(
      where,
      field,
      'E6',
      process.env.NODE_ENV !== 'production' &&
        `must be 1-255 printable ASCII characters (no CR, LF or non-ASCII), got ${typeof key === 'string' && key.length > 255 ? `${key.length} characters` : given(key, 'string')}`,
    );
  }
  return key;
}
