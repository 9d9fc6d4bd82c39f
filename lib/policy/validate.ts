import { MESSAGES } from './messages';
import type { Code, Values } from './messages';

export { given, shown, typed } from './messages';

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
 * Throws the `TypeError` for a wrong option: the field, then the words of its code (`messages.ts`),
 * made of the values given. A browser app's production build drops the words (the test below is
 * `false` there, so nothing reads the table) and its message is the code and its entry in
 * docs/errors.md; the Node build (rollup.config.mjs) replaces the test with `true`, so a server's
 * message always has its words.
 */
export function fail<C extends Code>(where: string, field: string, code: C, ...values: Values<C>): never {
  const words =
    process.env.NODE_ENV !== 'production'
      ? (MESSAGES[code] as (...values: unknown[]) => string)(...values)
      : `${code}: see ${DOCS}${code}`;
  throw new TypeError(`axios-resilience: ${where}${field} ${words}`);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Own enumerable keys only, so `__proto__` or `constructor` in JSON input is just an unknown name
 * (E1: its message suggests the nearest known name; `top`, the plugin's option names, where the
 * names checked are the plugin's own or a request's).
 */
export function checkKnown(
  where: string,
  value: Record<string, unknown>,
  known: ReadonlySet<string>,
  top?: ReadonlySet<string>,
): void {
  for (const key of Object.keys(value)) if (!known.has(key)) fail(where, key, 'E1', key, known, top);
}

/** The values of a code's message after the value itself. */
type Rest<C extends Code> = Values<C> extends [unknown, ...infer R] ? R : never;
/** A code whose message needs the value alone. */
type ValueCode = { [C in Code]: Values<C> extends [unknown] ? C : never }[Code];

/**
 * An options object (`hedge`, `budget`, `idempotencyKey`, ...): a plain object, else the TypeError
 * `code` (with the value and `rest` in its words); then every name in it known, else E1.
 */
export function optionsObject<C extends Code>(
  where: string,
  field: string,
  value: unknown,
  known: ReadonlySet<string>,
  code: C,
  ...rest: Rest<C>
): Record<string, unknown> {
  if (!isPlainObject(value)) fail(where, field, code, ...([value, ...rest] as unknown as Values<C>));
  checkKnown(`${where}${field}.`, value, known);
  return value;
}

/**
 * A list option (`statusCodes`, `idempotencyKey.methods`, ...): an array, else the TypeError `code`;
 * then each entry read by `entry`, which is given its field (`statusCodes[2]`) to name in its own.
 */
export function listOf<T>(
  where: string,
  field: string,
  value: unknown,
  code: ValueCode,
  entry: (item: unknown, field: string) => T,
): T[] {
  if (!Array.isArray(value)) fail(where, field, code, value);
  return value.map((item: unknown, index) => entry(item, `${field}[${index}]`));
}

/** `value[key]` when it is the object's own; a prototype's (or `__proto__`) never counts. */
export function own(value: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined;
}

export function nonNegative(where: string, field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) fail(where, field, 'E2', value);
  return value;
}

export function wholeNumber(where: string, field: string, value: unknown, fallback: number, min: number): number {
  const chosen = value ?? fallback;
  if (typeof chosen !== 'number' || !Number.isSafeInteger(chosen) || chosen < min)
    fail(where, field, 'E3', chosen, min);
  return chosen;
}

export function fn<T>(where: string, field: string, value: unknown, fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value !== 'function') fail(where, field, 'E4', value);
  return value as T;
}

export function flag(where: string, field: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') fail(where, field, 'E5', value);
  return value;
}

/** Header values must survive the wire: 1–255 printable ASCII characters, no CR/LF. */
export function validateKey(where: string, field: string, key: unknown): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > 255 || !/^[\x20-\x7e]+$/.test(key)) {
    fail(where, field, 'E6', key);
  }
  return key;
}
