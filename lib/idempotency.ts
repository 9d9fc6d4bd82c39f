import { v4 as uuidv4 } from 'uuid';
import type { AxiosHeaders } from 'axios';
import { validateKey } from './options';
import type { ResolvedOptions } from './options';

/** The header a caller's own key is looked for in when keys are off (`idempotencyKey: false`). */
const DEFAULT_HEADER = 'Idempotency-Key';

/** Web Crypto (Node 19+, browsers); its `randomUUID` (secure contexts) is about 3× cheaper than uuid's. */
const webCrypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;

/**
 * The default key: a uuid v4 from a cryptographic source, never Math.random — Web Crypto's
 * `randomUUID` where there is one, else the uuid package (`crypto.getRandomValues`).
 */
export function generateKey(): string {
  return typeof webCrypto?.randomUUID === 'function' ? webCrypto.randomUUID() : uuidv4();
}

/** The key a call carries, and whether this plugin made it (a caller's own key is never replaced). */
export interface CallKey {
  key: string;
  generated: boolean;
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false && value !== '';
}

/**
 * Attaches the call's Idempotency-Key, once per logical call, before the first send; every
 * attempt then sends the same header. A key the caller set (header, in any case, from the request
 * or the instance defaults, or a per-request string) is kept, and makes the call keyed even with
 * `idempotencyKey: false`. `stale` is a key this plugin generated for an earlier call that
 * succeeded: a config re-sent after success is a new operation, so it gets a new key.
 */
export function attachKey(
  headers: AxiosHeaders,
  method: string,
  options: ResolvedOptions,
  stale?: string,
): CallKey | undefined {
  const settings = options.idempotencyKey;
  const header = settings === false ? DEFAULT_HEADER : settings.header;
  if (settings !== false && options.pinnedKey !== undefined) {
    headers.set(header, options.pinnedKey);
    return { key: options.pinnedKey, generated: false };
  }
  const existing: unknown = headers.get(header);
  if (present(existing) && (stale === undefined || String(existing) !== stale)) {
    return { key: validateKey('', `the ${header} header`, String(existing)), generated: false };
  }
  if (settings === false || !settings.methods.has(method)) {
    if (stale !== undefined) headers.delete(header);
    return undefined;
  }
  // The built-in generator's uuids need no check; a user's generator might return anything.
  const key =
    settings.generate === undefined ? generateKey() : validateKey('', 'idempotencyKey.generate()', settings.generate());
  headers.set(header, key);
  return { key, generated: true };
}
