/**
 * How options are checked: a wrong value is a `TypeError` that names the field (with where it was
 * given: `config.retry.` for a request's own options) and says what was expected.
 */

/** An HTTP field name (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export function fail(where: string, field: string, problem: string): never {
  throw new TypeError(`axios-resilience: ${where}${field} ${problem}`);
}

/** A value for an error message; never throws (an object without a prototype has no toString). */
export function shown(value: unknown): string {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return String(value);
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Own enumerable keys only, so `__proto__` or `constructor` in JSON input is just an unknown name. */
export function checkKnown(where: string, value: Record<string, unknown>, known: ReadonlySet<string>): void {
  for (const key of Object.keys(value)) {
    if (!known.has(key)) fail(where, key, 'is not a known option');
  }
}

/** `value[key]` when it is the object's own; a prototype's (or `__proto__`) never counts. */
export function own(value: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined;
}

export function nonNegative(where: string, field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    fail(where, field, `must be a finite number >= 0, got ${shown(value)}`);
  }
  return value;
}

export function wholeNumber(where: string, field: string, value: unknown, fallback: number, min: number): number {
  const chosen = value ?? fallback;
  if (typeof chosen !== 'number' || !Number.isSafeInteger(chosen) || chosen < min) {
    fail(where, field, `must be a whole number >= ${min}, got ${shown(chosen)}`);
  }
  return chosen;
}

export function fn<T>(where: string, field: string, value: unknown, fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value !== 'function') fail(where, field, `must be a function, got ${typeof value}`);
  return value as T;
}

/** Header values must survive the wire: 1–255 printable ASCII characters, no CR/LF. */
export function validateKey(where: string, field: string, key: unknown): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > 255 || !/^[\x20-\x7e]+$/.test(key)) {
    throw new TypeError(
      `axios-resilience: ${where}${field} must be 1-255 printable ASCII characters (no CR, LF or non-ASCII)`,
    );
  }
  return key;
}
