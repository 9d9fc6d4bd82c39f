import { v4 as uuidv4 } from 'uuid';
import type { AxiosHeaders } from 'axios';
import type { KeySettings } from './key-options';
import { validateKey } from './validate';

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
 * The name under which `headers` holds `header`, in whatever case the caller wrote it. Cheaper than
 * `AxiosHeaders.get` (which lower-cases every name it passes): a name of another length is skipped
 * without being lower-cased, and most are (Accept, Content-Type, User-Agent, Authorization, …).
 */
function spelling(headers: AxiosHeaders, header: string): string | undefined {
  const names = Object.keys(headers);
  const lower = header.toLowerCase();
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (name.length === lower.length && name.toLowerCase() === lower) return name;
  }
  return undefined;
}

/** Whether the plugin may put a key on this call: a pinned key, a method it keys, or a stale key to replace. */
export function keysCall(method: string, options: KeySettings, stale: string | undefined): boolean {
  const settings = options.idempotencyKey;
  return (
    stale !== undefined || (settings !== false && (options.pinnedKey !== undefined || settings.methods.has(method)))
  );
}

/**
 * The key a caller put on a call the plugin does not key itself (a GET or PUT carrying its own
 * Idempotency-Key), or `undefined`. It matters only once an attempt has failed (a 409 is retried
 * for a keyed call), so the adapter looks for it then.
 */
export function callerKey(headers: AxiosHeaders, options: KeySettings): string | undefined {
  const name = spelling(headers, options.keyHeader);
  // Most calls carry no key: nothing more to look at.
  if (name === undefined) return undefined;
  const existing: unknown = headers[name];
  return present(existing) ? validateKey('', `the ${options.keyHeader} header`, String(existing)) : undefined;
}

/**
 * Attaches the call's Idempotency-Key, once per logical call, before the first send; every
 * attempt then sends the same header. A key the caller set (header, in any case, from the request,
 * the instance defaults or any request interceptor, or a per-request string) is kept, and makes the
 * call keyed even with `idempotencyKey: false`. `stale` is a key this plugin generated for an
 * earlier call that succeeded: a config re-sent after success is a new operation, so it gets a new
 * key.
 */
export function attachKey(
  headers: AxiosHeaders,
  method: string,
  options: KeySettings,
  stale: string | undefined,
): CallKey | undefined {
  const settings = options.idempotencyKey;
  const header = options.keyHeader;
  if (settings !== false && options.pinnedKey !== undefined) {
    headers.set(header, options.pinnedKey);
    return { key: options.pinnedKey, generated: false };
  }
  const name = spelling(headers, header);
  const existing: unknown = name === undefined ? undefined : headers[name];
  if (present(existing) && (stale === undefined || String(existing) !== stale)) {
    return { key: validateKey('', `the ${header} header`, String(existing)), generated: false };
  }
  // `false` is AxiosHeaders' "never send this header": the caller turned the key off for this call,
  // and a key the plugin made up would not be sent (set() keeps a `false`) yet would count as one.
  if (existing === false) return undefined;
  if (settings === false || !settings.methods.has(method)) {
    if (stale !== undefined && name !== undefined) headers.delete(name);
    return undefined;
  }
  // The built-in generator's uuids need no check; a user's generator might return anything.
  const key =
    settings.generate === undefined ? generateKey() : validateKey('', 'idempotencyKey.generate()', settings.generate());
  // A header that is not there yet is a plain property of AxiosHeaders, and a validated key needs
  // none of set()'s normalising; a name that is there (with an empty value) goes through set().
  if (name === undefined) headers[header] = key;
  else headers.set(name, key);
  return { key, generated: true };
}
