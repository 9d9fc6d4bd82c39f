import { v4 as uuidv4 } from 'uuid';
import type { AxiosHeaders } from 'axios';
import type { ResolvedOptions } from './options';

/** Header values must survive the wire: 1–255 printable ASCII characters, no CR/LF. */
export function validateKey(where: string, field: string, key: unknown): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > 255 || !/^[\x20-\x7e]+$/.test(key)) {
    throw new TypeError(
      `axios-resilience: ${where}${field} must be 1-255 printable ASCII characters (no CR, LF or non-ASCII)`,
    );
  }
  return key;
}

/**
 * The default key: a uuid v4. uuid draws from `crypto.getRandomValues` (Web Crypto in browsers,
 * node:crypto in Node), never from Math.random.
 */
export function generateKey(): string {
  return uuidv4();
}

/**
 * Attaches the call's Idempotency-Key, once per logical call, before the first send; every
 * attempt then sends the same header. A key the caller set (header or per-request string) is kept.
 * Returns the key the call carries, or `undefined`.
 */
export function attachKey(headers: AxiosHeaders, method: string, options: ResolvedOptions): string | undefined {
  const settings = options.idempotencyKey;
  if (settings === false) return undefined;
  if (options.pinnedKey !== undefined) {
    headers.set(settings.header, options.pinnedKey);
    return options.pinnedKey;
  }
  const existing = headers.get(settings.header);
  if (existing !== undefined && existing !== null && existing !== false) {
    return validateKey('', `the ${settings.header} header`, String(existing));
  }
  if (!settings.methods.has(method)) return undefined;
  // The built-in generator's uuids need no check; a user's generator might return anything.
  const generated = settings.generate();
  const key = settings.generate === generateKey ? generated : validateKey('', 'idempotencyKey.generate()', generated);
  headers.set(settings.header, key);
  return key;
}
