import type { JitterStrategy, RetryPluginOptions, RetryRequestOptions } from '../types';
import { DEFAULT_ERROR_CODES, DEFAULT_STATUS_CODES, DEFAULTS, MAX_TIMER_MS, systemClock } from './defaults';
import { resolveBreaker } from './breaker-options';
import type { ResolvedBreakerOptions } from './breaker-options';
import { resolveBudget } from './guard-options';
import type { ResolvedBudget } from './guard-options';
import { resolveChaos, type ChaosSetting } from './chaos-options';
import { resolveRateLimit } from './rate-limit-options';
import { resolveDialects } from './rate-limit-header-options';
import type { Dialects } from './rate-limit-header-options';
import type { ResolvedRateLimit } from './rate-limit-options';
import { resolveHedge } from './hedge-options';
import type { ResolvedHedge } from './hedge-options';
import { resolveKeys } from './key-options';
import { PEER_NAMES } from './peer-names';
import { resolveTables } from './table-options';
import type { KeySettings } from './key-options';
import {
  checkKnown,
  fail,
  flag,
  fn,
  given,
  HEADER_NAME,
  isPlainObject,
  nonNegative,
  own,
  shown,
  typed,
  wholeNumber,
} from './validate';

export { DEFAULT_ERROR_CODES, DEFAULT_STATUS_CODES, MAX_TIMER_MS };
export type { ResolvedBreakerOptions, ResolvedHedge };

/**
 * Option resolution, in one place: the plugin's options over the defaults (`defaults.ts`), and a
 * request's `config.retry` over the plugin's, validated as they are merged.
 */

/** The settings of one call's retry loop, validated. Budget and breaker live on the plugin. */
export interface ResolvedOptions extends KeySettings, ChaosSetting {
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  jitter: JitterStrategy;
  statusCodes: ReadonlySet<number>;
  errorCodes: ReadonlySet<string>;
  retryAfter: 'clamp' | 'fail';
  deadlineMs: number | undefined;
  onRetry: RetryPluginOptions['onRetry'];
  onGiveUp: RetryPluginOptions['onGiveUp'];
  shouldRetry: RetryPluginOptions['shouldRetry'];
  shouldRetryResponse: RetryPluginOptions['shouldRetryResponse'];
  delay: RetryPluginOptions['delay'];
  /** Writes are re-sent where the server may have processed them and is not declared to dedupe. */
  unsafeRetryWrites: boolean;
  beforeAttempt: RetryPluginOptions['beforeAttempt'];
  /** `false`: no hedging. */
  hedge: false | ResolvedHedge;
  onHedge: RetryPluginOptions['onHedge'];
  random: () => number;
  /** Header that tells the server the attempt number, or `false` for none. */
  attemptHeader: string | false;
  /** The most bytes of a stream body kept for a retry. */
  replayMaxBytes: number;
  /** Makes each retry's body afresh (per request only). */
  body: (() => unknown) | undefined;
  /**
   * Nothing runs around a first attempt but the send: no `beforeAttempt`, hedge, deadline,
   * `shouldRetry`, `shouldRetryResponse`, attempt header or body factory (the engine's short way
   * for most calls). `delay` and `unsafeRetryWrites` matter only once an attempt has failed.
   */
  plain: boolean;
}

/** The plugin-wide settings: per-call defaults plus the shared parts. */
export interface ResolvedPluginOptions {
  call: ResolvedOptions;
  budget: ResolvedBudget;
  breaker: false | ResolvedBreakerOptions;
  onCircuitStateChange: RetryPluginOptions['onCircuitStateChange'];
  rateLimit: false | ResolvedRateLimit;
  /** The rate-limit header dialects read; `undefined`: none (only the server's wait and say). */
  dialects: Dialects | undefined;
  onRateLimit: RetryPluginOptions['onRateLimit'];
  now: () => number;
}

const JITTERS: readonly JitterStrategy[] = ['full', 'equal', 'decorrelated', 'none'];
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
  'shouldRetryResponse',
  'delay',
  'unsafeRetryWrites',
  'beforeAttempt',
  'hedge',
  'onHedge',
  'random',
  'attemptHeader',
  'replay',
  'body',
  'chaos',
]);
const PLUGIN_FIELDS = new Set([
  ...CALL_FIELDS,
  'budget',
  'breaker',
  'onCircuitStateChange',
  'rateLimit',
  'rateLimitHeaders',
  'onRateLimit',
  'now',
]);
/**
 * What a message says of the peers' names, and of plugin-wide options given per request (where they
 * belong): read only when a name is wrong, and empty where messages are dropped (E1 either way).
 */
const peerNames = (): Record<string, string> => (process.env.NODE_ENV !== 'production' ? PEER_NAMES : {});
const requestElsewhere = (): Record<string, string> =>
  process.env.NODE_ENV !== 'production'
    ? {
        ...PEER_NAMES,
        ...Object.fromEntries(
          [...PLUGIN_FIELDS]
            .filter((field) => !CALL_FIELDS.has(field))
            .map((field) => [field, `can be set only in retryPlugin({ ${field} }), not per request`]),
        ),
      }
    : {};

type Input = Record<string, unknown>;

/**
 * retries, baseDelayMs, maxDelayMs and jitter. A base above the cap is allowed (retry-axios's
 * `retryDelay: 10000, maxRetryDelay: 5000`): `min(maxDelayMs, base × 2^n)` caps every wait.
 */
function waits(where: string, input: Input, base: ResolvedOptions | undefined) {
  const retries = wholeNumber(where, 'retries', own(input, 'retries'), base?.retries ?? DEFAULTS.retries, 0);
  const baseDelayMs = nonNegative(
    where,
    'baseDelayMs',
    own(input, 'baseDelayMs'),
    base?.baseDelayMs ?? DEFAULTS.baseDelayMs,
  );
  const maxDelayMs = nonNegative(
    where,
    'maxDelayMs',
    own(input, 'maxDelayMs'),
    base?.maxDelayMs ?? DEFAULTS.maxDelayMs,
  );
  if (maxDelayMs > MAX_TIMER_MS)
    fail(
      where,
      'maxDelayMs',
      'E7',
      process.env.NODE_ENV !== 'production' && `must be at most ${MAX_TIMER_MS} (2^31 - 1), got ${maxDelayMs}`,
    );
  const jitter = own(input, 'jitter') ?? base?.jitter ?? DEFAULTS.jitter;
  if (!JITTERS.includes(jitter as JitterStrategy)) {
    fail(
      where,
      'jitter',
      'E8',
      process.env.NODE_ENV !== 'production' &&
        `must be one of ${JITTERS.map(shown).join(', ')}, got ${given(jitter, 'string')}`,
    );
  }
  const retryAfter = own(input, 'retryAfter') ?? base?.retryAfter ?? DEFAULTS.retryAfter;
  if (retryAfter !== 'clamp' && retryAfter !== 'fail') {
    fail(
      where,
      'retryAfter',
      'E9',
      process.env.NODE_ENV !== 'production' && `must be "clamp" or "fail", got ${given(retryAfter, 'string')}`,
    );
  }
  return {
    retries,
    baseDelayMs,
    maxDelayMs,
    jitter: jitter as JitterStrategy,
    retryAfter: retryAfter as 'clamp' | 'fail',
  };
}

function deadline(where: string, value: unknown, fallback: number | undefined): number | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    fail(
      where,
      'deadlineMs',
      'E10',
      process.env.NODE_ENV !== 'production' && `must be a finite number > 0, got ${given(value, 'number')}`,
    );
  }
  return value;
}

const REPLAY_FIELDS = new Set(Object.keys(DEFAULTS.replay));

function replayBound(where: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (!isPlainObject(value))
    fail(
      where,
      'replay',
      'E11',
      process.env.NODE_ENV !== 'production' && `must be an object such as { maxBytes: 8388608 }, got ${typed(value)}`,
    );
  checkKnown(`${where}replay.`, value, REPLAY_FIELDS);
  const maxBytes = own(value, 'maxBytes');
  if (maxBytes === undefined) return fallback;
  if (typeof maxBytes !== 'number' || !Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    fail(
      where,
      'replay.maxBytes',
      'E12',
      process.env.NODE_ENV !== 'production' &&
        `must be a positive whole number of bytes, got ${given(maxBytes, 'number')}`,
    );
  }
  return maxBytes;
}

/** The body factory: per request only (one body for every call of a plugin would make no sense). */
function bodyFactory(where: string, value: unknown, base: ResolvedOptions | undefined): (() => unknown) | undefined {
  if (value === undefined) return undefined;
  if (base === undefined)
    fail(
      where,
      'body',
      'E13',
      process.env.NODE_ENV !== 'production' &&
        "can be set only per request, in config.retry (it makes one call's body)",
    );
  return fn<(() => unknown) | undefined>(where, 'body', value, undefined);
}

function attemptHeader(where: string, value: unknown, fallback: string | false): string | false {
  if (value === undefined) return fallback;
  if (value === false) return false;
  if (value === true) return DEFAULTS.attemptHeaderName;
  if (typeof value !== 'string' || !HEADER_NAME.test(value)) {
    fail(
      where,
      'attemptHeader',
      'E14',
      process.env.NODE_ENV !== 'production' &&
        `must be false, true or a header name such as "X-Retry-Attempt", got ${typed(value)}`,
    );
  }
  return value;
}

/**
 * Merges `input` over `base` (the plugin's resolved options, or the defaults) and validates the
 * result. Throws a `TypeError` naming the first wrong field.
 */
export function resolveCallOptions(input: Input, base: ResolvedOptions | undefined, where: string): ResolvedOptions {
  type Hook = 'onRetry' | 'onGiveUp' | 'shouldRetry' | 'shouldRetryResponse' | 'delay' | 'beforeAttempt' | 'onHedge';
  const hook = <K extends Hook>(field: K) => fn<ResolvedOptions[K]>(where, field, own(input, field), base?.[field]);
  const resolved: Omit<ResolvedOptions, 'plain'> = {
    ...waits(where, input, base),
    ...resolveTables(where, input, base),
    ...resolveKeys(where, own(input, 'idempotencyKey'), base),
    deadlineMs: deadline(where, own(input, 'deadlineMs'), base?.deadlineMs),
    onRetry: hook('onRetry'),
    onGiveUp: hook('onGiveUp'),
    shouldRetry: hook('shouldRetry'),
    shouldRetryResponse: hook('shouldRetryResponse'),
    delay: hook('delay'),
    unsafeRetryWrites: flag(
      where,
      'unsafeRetryWrites',
      own(input, 'unsafeRetryWrites'),
      base?.unsafeRetryWrites ?? DEFAULTS.unsafeRetryWrites,
    ),
    beforeAttempt: hook('beforeAttempt'),
    hedge: resolveHedge(where, own(input, 'hedge'), base?.hedge ?? DEFAULTS.hedge),
    onHedge: hook('onHedge'),
    random: fn(where, 'random', own(input, 'random'), base?.random ?? Math.random),
    attemptHeader: attemptHeader(where, own(input, 'attemptHeader'), base?.attemptHeader ?? DEFAULTS.attemptHeader),
    replayMaxBytes: replayBound(where, own(input, 'replay'), base?.replayMaxBytes ?? DEFAULTS.replay.maxBytes),
    body: bodyFactory(where, own(input, 'body'), base),
    chaos: resolveChaos(where, own(input, 'chaos'), base?.chaos),
  };
  const plain =
    resolved.beforeAttempt === undefined &&
    resolved.hedge === false &&
    resolved.deadlineMs === undefined &&
    resolved.shouldRetryResponse === undefined &&
    resolved.attemptHeader === false &&
    resolved.body === undefined;
  return { ...resolved, plain };
}

/** Validates everything given to `retryPlugin()`. Throws a `TypeError` naming the wrong field. */
export function resolvePluginOptions(options: RetryPluginOptions | undefined): ResolvedPluginOptions {
  const input: unknown = options ?? {};
  if (!isPlainObject(input))
    fail('', 'options', 'E15', process.env.NODE_ENV !== 'production' && `must be an object, got ${typed(input)}`);
  checkKnown('', input, PLUGIN_FIELDS, peerNames);
  return {
    call: resolveCallOptions(input, undefined, ''),
    budget: resolveBudget(own(input, 'budget')),
    breaker: resolveBreaker(own(input, 'breaker')),
    onCircuitStateChange: fn('', 'onCircuitStateChange', own(input, 'onCircuitStateChange'), undefined),
    rateLimit: resolveRateLimit(own(input, 'rateLimit')),
    dialects: resolveDialects(own(input, 'rateLimitHeaders')),
    onRateLimit: fn('', 'onRateLimit', own(input, 'onRateLimit'), undefined),
    now: fn('', 'now', own(input, 'now'), systemClock),
  };
}

/**
 * The options of one call: the plugin's, or the per-request `retry` object merged over them.
 * `false` means the plugin leaves the call alone. `true` is refused, not read as "the plugin's
 * options": the type forbids it, and a caller who writes it may mean something else (retry even
 * what the plugin would not?), so they are told what each form does.
 */
export function resolveRequestOptions(field: unknown, plugin: ResolvedOptions): ResolvedOptions | false {
  if (field === undefined || field === null) return plugin;
  if (field === false) return false;
  if (field === true) {
    fail(
      'config.retry',
      '',
      'E16',
      process.env.NODE_ENV !== 'production' &&
        'cannot be true: omit it, or give an options object; false turns the plugin off for the call',
    );
  }
  if (!isPlainObject(field)) {
    fail(
      'config.retry',
      '',
      'E17',
      process.env.NODE_ENV !== 'production' &&
        `must be false or an options object, got ${typed(field)}${typeof field === 'number' ? ` (for ${field} retries: { retries: ${field} })` : ''}`,
    );
  }
  checkKnown('config.retry.', field, CALL_FIELDS, requestElsewhere);
  return resolveCallOptions(field as RetryRequestOptions as Input, plugin, 'config.retry.');
}
