import { DEFAULTS } from './defaults';
import { absoluteOrigin } from './origin';
import { fail, fn, HEADER_NAME, listOf, optionsObject, own, validateKey } from './validate';

/** The `idempotencyKey` option: which header, which methods, which generator, which servers dedupe. */

/** Idempotency-Key settings, validated. */
export interface ResolvedKeyOptions {
  header: string;
  methods: ReadonlySet<string>;
  /** `undefined` for the built-in uuid generator. */
  generate: (() => string) | undefined;
  /** Whether the server at an origin stores keys and replays its answer (so a generated key makes a write safe to repeat). */
  serverDedupes: (origin: string) => boolean;
  /** The origins `serverDedupes` listed, when it was a list (a failed write's story names them). */
  declared?: readonly string[];
}

/** A call's key settings: `false` generates none; `pinnedKey` is a key the request pinned. */
export interface KeySettings {
  idempotencyKey: false | ResolvedKeyOptions;
  pinnedKey: string | undefined;
  /** The header keys travel in; a caller's own key is looked for there even with keys off (the default's). */
  keyHeader: string;
}

const KEY_FIELDS = new Set(['header', 'methods', 'generate', 'serverDedupes']);
const NO_SERVER_DEDUPES = (): boolean => false;
const EVERY_SERVER_DEDUPES = (): boolean => true;

const DEFAULT_KEYS: ResolvedKeyOptions = {
  header: DEFAULTS.idempotencyKey.header,
  methods: new Set(DEFAULTS.idempotencyKey.methods),
  generate: undefined,
  serverDedupes: DEFAULTS.idempotencyKey.serverDedupes ? EVERY_SERVER_DEDUPES : NO_SERVER_DEDUPES,
};

/**
 * `idempotencyKey` over `base` (the plugin's settings, for a request): `false`, an object, or — per
 * request only — a string that pins the key for the call.
 */
export function resolveKeys(where: string, value: unknown, base: KeySettings | undefined): KeySettings {
  let pinnedKey: string | undefined;
  let idempotencyKey: false | ResolvedKeyOptions;
  if (typeof value === 'string') {
    if (base === undefined) fail(where, 'idempotencyKey', 'E23', value);
    pinnedKey = validateKey(where, 'idempotencyKey', value);
    idempotencyKey = base.idempotencyKey || DEFAULT_KEYS;
  } else idempotencyKey = keyOptions(where, value, base?.idempotencyKey);
  return { idempotencyKey, pinnedKey, keyHeader: (idempotencyKey || DEFAULT_KEYS).header };
}

function keyOptions(
  where: string,
  value: unknown,
  base: false | ResolvedKeyOptions | undefined,
): false | ResolvedKeyOptions {
  if (value === false) return false;
  // A request that turned keys on again over a plugin with `idempotencyKey: false` starts from the defaults.
  const fallback = base || DEFAULT_KEYS;
  if (value === undefined) return base === undefined ? fallback : base;
  const input = optionsObject(where, 'idempotencyKey', value, KEY_FIELDS, 'E24', base !== undefined);
  const header = own(input, 'header') ?? fallback.header;
  if (typeof header !== 'string' || !HEADER_NAME.test(header)) fail(where, 'idempotencyKey.header', 'E25', header);
  const methodsValue = own(input, 'methods');
  const methods =
    methodsValue === undefined
      ? fallback.methods
      : new Set(
          listOf(where, 'idempotencyKey.methods', methodsValue, 'E26', (method, field) => {
            if (typeof method !== 'string' || !HEADER_NAME.test(method)) fail(where, field, 'E27', method);
            return method.toUpperCase();
          }),
        );
  const generate = fn<(() => string) | undefined>(
    where,
    'idempotencyKey.generate',
    own(input, 'generate'),
    fallback.generate,
  );
  return { header, methods, generate, ...dedupeRule(where, own(input, 'serverDedupes'), fallback) };
}

/**
 * `serverDedupes` as one predicate over the call's origin: `true`/`false` for every origin, a list
 * of origins (absolute URLs, compared as `scheme://host:port`, kept as `declared` for a failed
 * write's story), or the caller's own predicate.
 */
function dedupeRule(
  where: string,
  value: unknown,
  fallback: ResolvedKeyOptions,
): Pick<ResolvedKeyOptions, 'serverDedupes' | 'declared'> {
  if (value === undefined) {
    const { serverDedupes, declared } = fallback;
    return declared === undefined ? { serverDedupes } : { serverDedupes, declared };
  }
  if (value === true) return { serverDedupes: EVERY_SERVER_DEDUPES };
  if (value === false) return { serverDedupes: NO_SERVER_DEDUPES };
  if (typeof value === 'function') {
    const predicate = value as (origin: string) => unknown;
    return { serverDedupes: (origin) => predicate(origin) === true };
  }
  const field = 'idempotencyKey.serverDedupes';
  const declared = listOf(where, field, value, 'E28', (entry) => {
    const origin = typeof entry === 'string' ? absoluteOrigin(entry) : undefined;
    if (origin === undefined) fail(where, field, 'E29', entry);
    return origin;
  });
  const origins = new Set(declared);
  return { serverDedupes: (origin) => origins.has(origin), declared };
}
