import { RetryBudget } from '../guards/budget';
import { absoluteOrigin } from './origin';
import type {
  BreakerOptions,
  JitterStrategy,
  RetryPluginOptions,
  RetryRequestOptions,
  RetryEvent,
  GiveUpEvent,
  RetryBudgetLike,
} from '../types';

/** The largest delay a JavaScript timer honours; a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** 408: RFC 9110 §15.5.9 — the server did not process the request and the client may repeat it. */
export const DEFAULT_STATUS_CODES: readonly number[] = [408, 429, 502, 503, 504];

/** Errors with no response that mean the network, not the request, failed. */
export const DEFAULT_ERROR_CODES: readonly string[] = [
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'ESOCKETTIMEDOUT',
  // undici's dropped socket, under the fetch adapter's generic ERR_NETWORK.
  'UND_ERR_SOCKET',
  'ERR_NETWORK',
];

const JITTERS: readonly JitterStrategy[] = ['full', 'equal', 'decorrelated', 'none'];
/** An HTTP field name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The settings of one call's retry loop, validated. Budget and breaker live on the plugin. */
export interface ResolvedOptions {
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  jitter: JitterStrategy;
  statusCodes: ReadonlySet<number>;
  errorCodes: ReadonlySet<string>;
  /** `false`: no key is generated. `generate` is `undefined` for the built-in uuid generator. */
  idempotencyKey: false | ResolvedKeyOptions;
  /** A key pinned by the per-request field. */
  pinnedKey: string | undefined;
  retryAfter: 'clamp' | 'fail';
  deadlineMs: number | undefined;
  onRetry: ((event: RetryEvent) => void | Promise<void>) | undefined;
  onGiveUp: ((event: GiveUpEvent) => void) | undefined;
  shouldRetry: RetryPluginOptions['shouldRetry'];
  beforeAttempt: RetryPluginOptions['beforeAttempt'];
  /** `false`: no hedging. */
  hedge: false | ResolvedHedge;
  onHedge: RetryPluginOptions['onHedge'];
  random: () => number;
  /** Header that tells the server the attempt number, or `false` for none. */
  attemptHeader: string | false;
  /**
   * Nothing runs around a first attempt but the send: no `beforeAttempt`, hedge, deadline,
   * `shouldRetry` or attempt header (the adapter's short way for most calls).
   */
  plain: boolean;
}

/** The plugin-wide settings: per-call defaults plus the shared parts. */
export interface ResolvedPluginOptions {
  call: ResolvedOptions;
  /** `shared`: one budget for every call; `perOrigin`: the settings of one budget per origin. */
  budget:
    | false
    | { shared: RetryBudgetLike }
    | { perOrigin: { ratio: number; minPerSecond: number; windowMs: number; maxOrigins: number } };
  breaker: false | ResolvedBreakerOptions;
  onCircuitStateChange: RetryPluginOptions['onCircuitStateChange'];
  now: () => number;
}

/** Hedging settings, validated; `percentile` is set for an adaptive delay (0.95 for `'p95'`). */
export interface ResolvedHedge {
  delayMs: number;
  percentile: number | undefined;
  maxHedges: number;
  minDelayMs: number;
  fallbackDelayMs: number;
}

/** Idempotency-Key settings, validated. */
export interface ResolvedKeyOptions {
  header: string;
  methods: ReadonlySet<string>;
  generate: (() => string) | undefined;
  /** Whether the server at an origin stores keys and replays its answer (so a generated key makes a write safe to repeat). */
  serverDedupes: (origin: string) => boolean;
}

const PERCENTILES: Record<string, number> = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99 };
const HEDGE_FIELDS = new Set(['delayMs', 'maxHedges', 'minDelayMs', 'fallbackDelayMs']);

function hedgeOptions(where: string, value: unknown, fallback: false | ResolvedHedge): false | ResolvedHedge {
  if (value === undefined) return fallback;
  if (value === false) return false;
  if (!isPlainObject(value)) fail(where, 'hedge', 'must be false or { delayMs, maxHedges? }');
  checkKnown(`${where}hedge.`, value, HEDGE_FIELDS);
  const delay = own(value, 'delayMs');
  const percentile = typeof delay === 'string' && Object.hasOwn(PERCENTILES, delay) ? PERCENTILES[delay] : undefined;
  if (
    percentile === undefined &&
    (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0 || delay > MAX_TIMER_MS)
  ) {
    fail(
      where,
      'hedge.delayMs',
      `must be ms (0 to ${MAX_TIMER_MS}) or 'p50', 'p90', 'p95', 'p99', got ${shown(delay)}`,
    );
  }
  const maxHedges = own(value, 'maxHedges') ?? 1;
  if (typeof maxHedges !== 'number' || !Number.isSafeInteger(maxHedges) || maxHedges < 1 || maxHedges > 10) {
    fail(where, 'hedge.maxHedges', `must be a whole number from 1 to 10, got ${shown(maxHedges)}`);
  }
  return {
    delayMs: percentile === undefined ? (delay as number) : 0,
    percentile,
    maxHedges,
    minDelayMs: nonNegative(where, 'hedge.minDelayMs', own(value, 'minDelayMs'), 5),
    fallbackDelayMs: nonNegative(where, 'hedge.fallbackDelayMs', own(value, 'fallbackDelayMs'), 100),
  };
}

/** The breaker's settings, every default filled in. */
export interface ResolvedBreakerOptions {
  errorThresholdPercentage: number;
  volumeThreshold: number;
  resetTimeout: number;
  maxResetTimeout: number;
  rollingCountTimeout: number;
  rollingCountBuckets: number;
  maxOrigins: number;
  key: BreakerOptions['key'];
  shared: BreakerOptions['shared'];
}

const CALL_FIELDS = new Set([
  'retries',
  'baseDelayMs',
  'maxDelayMs',
  'jitter',
  'statusCodes',
  'errorCodes',
  'idempotencyKey',
  'retryAfter',
  'deadlineMs',
  'onRetry',
  'onGiveUp',
  'shouldRetry',
  'beforeAttempt',
  'hedge',
  'onHedge',
  'random',
  'attemptHeader',
]);
const PLUGIN_FIELDS = new Set([...CALL_FIELDS, 'budget', 'breaker', 'onCircuitStateChange', 'now']);
const KEY_FIELDS = new Set(['header', 'methods', 'generate', 'serverDedupes']);
const BUDGET_FIELDS = new Set(['ratio', 'minPerSecond', 'windowMs', 'maxOrigins']);

/** Header values must survive the wire: 1–255 printable ASCII characters, no CR/LF. */
export function validateKey(where: string, field: string, key: unknown): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > 255 || !/^[\x20-\x7e]+$/.test(key)) {
    throw new TypeError(
      `axios-resilience: ${where}${field} must be 1-255 printable ASCII characters (no CR, LF or non-ASCII)`,
    );
  }
  return key;
}

/** A value for an error message; never throws (an object without a prototype has no toString). */
function shown(value: unknown): string {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return String(value);
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

function fail(where: string, field: string, problem: string): never {
  throw new TypeError(`axios-resilience: ${where}${field} ${problem}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Own enumerable keys only, so `__proto__` or `constructor` in JSON input is just an unknown name. */
function checkKnown(where: string, value: Record<string, unknown>, known: ReadonlySet<string>): void {
  for (const key of Object.keys(value)) {
    if (!known.has(key)) fail(where, key, 'is not a known option');
  }
}

function own(value: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined;
}

function nonNegative(where: string, field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    fail(where, field, `must be a finite number >= 0, got ${shown(value)}`);
  }
  return value;
}

function fn<T>(where: string, field: string, value: unknown, fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value !== 'function') fail(where, field, `must be a function, got ${typeof value}`);
  return value as T;
}

function keyOptions(
  where: string,
  value: unknown,
  base: ResolvedOptions['idempotencyKey'] | undefined,
): ResolvedOptions['idempotencyKey'] {
  if (value === false) return false;
  // A request that turned keys on again over a plugin with `idempotencyKey: false` starts from the defaults.
  const fallback = base || DEFAULTS.idempotencyKey;
  if (value === undefined) return base === undefined ? fallback : base;
  if (!isPlainObject(value)) fail(where, 'idempotencyKey', 'must be false or an object');
  checkKnown(`${where}idempotencyKey.`, value, KEY_FIELDS);
  const header = own(value, 'header') ?? fallback.header;
  if (typeof header !== 'string' || !HEADER_NAME.test(header)) {
    fail(where, 'idempotencyKey.header', 'must be a valid header name');
  }
  const methodsValue = own(value, 'methods');
  let methods = fallback.methods;
  if (methodsValue !== undefined) {
    if (!Array.isArray(methodsValue) || methodsValue.some((m) => typeof m !== 'string')) {
      fail(where, 'idempotencyKey.methods', 'must be an array of method names');
    }
    methods = new Set((methodsValue as string[]).map((m) => m.toUpperCase()));
  }
  const generate = fn<(() => string) | undefined>(
    where,
    'idempotencyKey.generate',
    own(value, 'generate'),
    fallback.generate,
  );
  const serverDedupes = dedupeRule(where, own(value, 'serverDedupes'), fallback.serverDedupes);
  return { header, methods, generate, serverDedupes };
}

const NO_SERVER_DEDUPES = (): boolean => false;
const EVERY_SERVER_DEDUPES = (): boolean => true;

/**
 * `serverDedupes` as one predicate over the call's origin: `true`/`false` for every origin, a list
 * of origins (absolute URLs, compared as `scheme://host:port`), or the caller's own predicate.
 */
function dedupeRule(
  where: string,
  value: unknown,
  fallback: ResolvedKeyOptions['serverDedupes'],
): ResolvedKeyOptions['serverDedupes'] {
  if (value === undefined) return fallback;
  if (value === true) return EVERY_SERVER_DEDUPES;
  if (value === false) return NO_SERVER_DEDUPES;
  if (typeof value === 'function') {
    const predicate = value as (origin: string) => unknown;
    return (origin) => predicate(origin) === true;
  }
  const field = 'idempotencyKey.serverDedupes';
  if (!Array.isArray(value)) {
    fail(where, field, `must be a boolean, an array of origins or a function (origin) => boolean, got ${shown(value)}`);
  }
  const origins = new Set<string>();
  for (const entry of value as unknown[]) {
    const origin = typeof entry === 'string' ? absoluteOrigin(entry) : undefined;
    if (origin === undefined)
      fail(where, field, `must list absolute URLs such as 'https://api.example.com', got ${shown(entry)}`);
    origins.add(origin);
  }
  return (origin) => origins.has(origin);
}

const DEFAULTS = {
  idempotencyKey: {
    header: 'Idempotency-Key',
    methods: new Set(['POST', 'PATCH']),
    generate: undefined,
    serverDedupes: NO_SERVER_DEDUPES,
  },
};

function attemptHeader(where: string, value: unknown, fallback: string | false): string | false {
  if (value === undefined) return fallback;
  if (value === false) return false;
  if (value === true) return 'X-Retry-Attempt';
  if (typeof value !== 'string' || !HEADER_NAME.test(value)) {
    fail(where, 'attemptHeader', 'must be false, true or a valid header name');
  }
  return value;
}

/**
 * Merges `input` over `base` (the plugin's resolved options, or the built-in defaults) and
 * validates the result. Throws a `TypeError` naming the first wrong field.
 */
export function resolveCallOptions(
  input: Record<string, unknown>,
  base: ResolvedOptions | undefined,
  where: string,
): ResolvedOptions {
  const retriesValue = own(input, 'retries');
  const retries = retriesValue === undefined ? (base?.retries ?? 5) : retriesValue;
  if (typeof retries !== 'number' || !Number.isSafeInteger(retries) || retries < 0) {
    fail(where, 'retries', `must be a whole number >= 0, got ${shown(retries)}`);
  }
  const baseDelayMs = nonNegative(where, 'baseDelayMs', own(input, 'baseDelayMs'), base?.baseDelayMs ?? 500);
  const maxDelayMs = nonNegative(where, 'maxDelayMs', own(input, 'maxDelayMs'), base?.maxDelayMs ?? 30000);
  if (maxDelayMs > MAX_TIMER_MS)
    fail(where, 'maxDelayMs', `must be at most ${MAX_TIMER_MS} (2^31 - 1), got ${maxDelayMs}`);
  if (maxDelayMs < baseDelayMs) {
    fail(where, 'maxDelayMs', `(${maxDelayMs}) must not be below baseDelayMs (${baseDelayMs})`);
  }
  const jitter = own(input, 'jitter') ?? base?.jitter ?? 'full';
  if (!JITTERS.includes(jitter as JitterStrategy)) {
    fail(where, 'jitter', `must be one of ${JITTERS.join(', ')}, got ${shown(jitter)}`);
  }

  const statusValue = own(input, 'statusCodes');
  let statusCodes = base?.statusCodes ?? new Set(DEFAULT_STATUS_CODES);
  if (statusValue !== undefined) {
    if (!Array.isArray(statusValue) || statusValue.some((s) => !Number.isInteger(s) || s < 100 || s > 599)) {
      fail(where, 'statusCodes', 'must be an array of HTTP status codes (100-599)');
    }
    statusCodes = new Set(statusValue as number[]);
  }
  const codesValue = own(input, 'errorCodes');
  let errorCodes = base?.errorCodes ?? new Set(DEFAULT_ERROR_CODES);
  if (codesValue !== undefined) {
    if (!Array.isArray(codesValue) || codesValue.some((c) => typeof c !== 'string')) {
      fail(where, 'errorCodes', 'must be an array of error code strings');
    }
    errorCodes = new Set(codesValue as string[]);
  }

  const keyValue = own(input, 'idempotencyKey');
  let pinnedKey: string | undefined;
  let idempotencyKey: ResolvedOptions['idempotencyKey'];
  if (typeof keyValue === 'string') {
    if (base === undefined)
      fail(where, 'idempotencyKey', 'can be a string only per request (it would pin one key for every call)');
    pinnedKey = validateKey(where, 'idempotencyKey', keyValue);
    idempotencyKey = base.idempotencyKey || DEFAULTS.idempotencyKey;
  } else {
    idempotencyKey = keyOptions(where, keyValue, base?.idempotencyKey);
  }

  const retryAfter = own(input, 'retryAfter') ?? base?.retryAfter ?? 'clamp';
  if (retryAfter !== 'clamp' && retryAfter !== 'fail') {
    fail(where, 'retryAfter', `must be 'clamp' or 'fail', got ${shown(retryAfter)}`);
  }
  const deadlineValue = own(input, 'deadlineMs');
  let deadlineMs = base?.deadlineMs;
  if (deadlineValue !== undefined) {
    if (typeof deadlineValue !== 'number' || !Number.isFinite(deadlineValue) || deadlineValue <= 0) {
      fail(where, 'deadlineMs', `must be a finite number > 0, got ${shown(deadlineValue)}`);
    }
    deadlineMs = deadlineValue;
  }

  const resolved: Omit<ResolvedOptions, 'plain'> = {
    retries,
    baseDelayMs,
    maxDelayMs,
    jitter: jitter as JitterStrategy,
    statusCodes,
    errorCodes,
    idempotencyKey,
    pinnedKey,
    retryAfter,
    deadlineMs,
    onRetry: fn(where, 'onRetry', own(input, 'onRetry'), base?.onRetry),
    onGiveUp: fn(where, 'onGiveUp', own(input, 'onGiveUp'), base?.onGiveUp),
    shouldRetry: fn(where, 'shouldRetry', own(input, 'shouldRetry'), base?.shouldRetry),
    beforeAttempt: fn(where, 'beforeAttempt', own(input, 'beforeAttempt'), base?.beforeAttempt),
    hedge: hedgeOptions(where, own(input, 'hedge'), base?.hedge ?? false),
    onHedge: fn(where, 'onHedge', own(input, 'onHedge'), base?.onHedge),
    random: fn(where, 'random', own(input, 'random'), base?.random ?? Math.random),
    attemptHeader: attemptHeader(where, own(input, 'attemptHeader'), base?.attemptHeader ?? false),
  };
  const plain =
    resolved.beforeAttempt === undefined &&
    resolved.hedge === false &&
    resolved.deadlineMs === undefined &&
    resolved.shouldRetry === undefined &&
    resolved.attemptHeader === false;
  return { ...resolved, plain };
}

function resolveBudget(value: unknown): ResolvedPluginOptions['budget'] {
  if (value === false) return false;
  // A shared budget: a RetryBudget, or anything that keeps the same promises.
  if (value instanceof RetryBudget || typeof (value as RetryBudgetLike | null)?.tryWithdraw === 'function')
    return { shared: value as RetryBudgetLike };
  const input = value === undefined ? {} : value;
  if (!isPlainObject(input)) fail('', 'budget', 'must be false, a RetryBudget or an options object');
  checkKnown('budget.', input, BUDGET_FIELDS);
  // RetryBudget validates ratio, minPerSecond and windowMs; build one now so a bad value fails here.
  const probe = new RetryBudget(input as ConstructorParameters<typeof RetryBudget>[0]);
  const maxOrigins = own(input, 'maxOrigins') ?? 1000;
  if (typeof maxOrigins !== 'number' || !Number.isSafeInteger(maxOrigins) || maxOrigins < 1) {
    fail('', 'budget.maxOrigins', 'must be a whole number >= 1');
  }
  return { perOrigin: { ...probe.options, maxOrigins } };
}

/**
 * opossum options the plugin sets itself or cannot honour, and what to use instead. Everything
 * else unknown is refused too: a misspelt option must not be silently ignored.
 */
const BREAKER_REFUSED: Record<string, string> = {
  timeout: "axios's own `timeout` (per attempt) and `deadlineMs` (per call)",
  errorFilter: '`statusCodes` and `errorCodes`: only their failures count against the breaker',
  rotateBucketController: 'nothing: the plugin rotates every breaker on one shared timer',
  enableSnapshots: 'nothing: snapshots stay off so a thousand origins do not mean a thousand timers',
  cache: 'a caching layer such as axios-cache-interceptor',
  coalesce: 'a caching layer such as axios-cache-interceptor',
  capacity: 'a concurrency limiter in front of axios',
  name: '`key`',
  group: '`key`',
};
const BREAKER_FIELDS = new Set([
  'errorThresholdPercentage',
  'volumeThreshold',
  'resetTimeout',
  'maxResetTimeout',
  'rollingCountTimeout',
  'rollingCountBuckets',
  'maxOrigins',
  'key',
  'shared',
]);

function resolveBreaker(value: unknown): ResolvedPluginOptions['breaker'] {
  if (value === false) return false;
  const input = value === undefined ? {} : value;
  if (!isPlainObject(input)) fail('', 'breaker', 'must be false or an options object');
  for (const key of Object.keys(input)) {
    if (BREAKER_FIELDS.has(key)) continue;
    const instead = Object.prototype.hasOwnProperty.call(BREAKER_REFUSED, key) ? BREAKER_REFUSED[key] : undefined;
    fail('', `breaker.${key}`, instead ? `cannot be set here; use ${instead}` : 'is not a known breaker option');
  }
  const number = (field: string, fallback: number): number =>
    nonNegative('', `breaker.${field}`, own(input, field), fallback);
  const result: ResolvedBreakerOptions = {
    errorThresholdPercentage: number('errorThresholdPercentage', 50),
    volumeThreshold: number('volumeThreshold', 10),
    resetTimeout: number('resetTimeout', 2000),
    maxResetTimeout: 0,
    rollingCountTimeout: number('rollingCountTimeout', 10000),
    rollingCountBuckets: number('rollingCountBuckets', 10),
    maxOrigins: number('maxOrigins', 1000),
    key: fn<BreakerOptions['key']>('', 'breaker.key', own(input, 'key'), undefined),
    shared: own(input, 'shared') as BreakerOptions['shared'],
  };
  // A first wait above the default cap raises the cap: the wait then stays where the user put it.
  result.maxResetTimeout = number('maxResetTimeout', Math.max(60000, result.resetTimeout));
  if (result.maxResetTimeout > MAX_TIMER_MS) fail('', 'breaker.maxResetTimeout', `must be at most ${MAX_TIMER_MS}`);
  if (result.resetTimeout > result.maxResetTimeout)
    fail(
      '',
      'breaker.resetTimeout',
      `(${result.resetTimeout}) must not be above maxResetTimeout (${result.maxResetTimeout})`,
    );
  if (!Number.isSafeInteger(result.maxOrigins) || result.maxOrigins < 1)
    fail('', 'breaker.maxOrigins', 'must be a whole number >= 1');
  if (result.rollingCountBuckets < 1) fail('', 'breaker.rollingCountBuckets', 'must be at least 1');
  const shared = result.shared as unknown;
  if (shared !== undefined && (shared === null || typeof (shared as { announce?: unknown }).announce !== 'function'))
    fail('', 'breaker.shared', 'must be a BreakerSync (e.g. redisBreakerSync(client))');
  return result;
}

/** Validates everything given to `retryPlugin()`. Throws a `TypeError` naming the wrong field. */
export function resolvePluginOptions(options: RetryPluginOptions | undefined): ResolvedPluginOptions {
  const input: unknown = options ?? {};
  if (!isPlainObject(input)) fail('', 'options', 'must be an object');
  checkKnown('', input, PLUGIN_FIELDS);
  return {
    call: resolveCallOptions(input, undefined, ''),
    budget: resolveBudget(own(input, 'budget')),
    breaker: resolveBreaker(own(input, 'breaker')),
    onCircuitStateChange: fn('', 'onCircuitStateChange', own(input, 'onCircuitStateChange'), undefined),
    now: fn('', 'now', own(input, 'now'), Date.now),
  };
}

/**
 * The options of one call: the plugin's, or the per-request `retry` object merged over them.
 * `false` means the plugin leaves the call alone.
 */
export function resolveRequestOptions(field: unknown, plugin: ResolvedOptions): ResolvedOptions | false {
  if (field === undefined || field === null || field === true) return plugin;
  if (field === false) return false;
  if (!isPlainObject(field)) fail('config.retry', '', 'must be false or an options object');
  checkKnown('config.retry.', field, CALL_FIELDS);
  return resolveCallOptions(field as RetryRequestOptions as Record<string, unknown>, plugin, 'config.retry.');
}
