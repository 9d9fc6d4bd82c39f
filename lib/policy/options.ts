import type { GiveUpEvent, JitterStrategy, RetryEvent, RetryPluginOptions, RetryRequestOptions } from '../types';
import { DEFAULT_ERROR_CODES, DEFAULT_STATUS_CODES, DEFAULTS, MAX_TIMER_MS, systemClock } from './defaults';
import { resolveBreaker, resolveBudget, resolveRateLimit } from './guard-options';
import type { ResolvedBreakerOptions, ResolvedBudget, ResolvedRateLimit } from './guard-options';
import { resolveChaos, type ChaosSetting } from './chaos-options';
import { resolveKeys } from './key-options';
import type { KeySettings } from './key-options';
import { checkKnown, fail, fn, HEADER_NAME, isPlainObject, nonNegative, own, shown, wholeNumber } from './validate';

export { DEFAULT_ERROR_CODES, DEFAULT_STATUS_CODES, MAX_TIMER_MS };
export type { ResolvedBreakerOptions };

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
  /** The most bytes of a stream body kept for a retry. */
  replayMaxBytes: number;
  /** Makes each retry's body afresh (per request only). */
  body: (() => unknown) | undefined;
  /**
   * Nothing runs around a first attempt but the send: no `beforeAttempt`, hedge, deadline,
   * `shouldRetry`, attempt header or body factory (the engine's short way for most calls).
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
  onRateLimit: RetryPluginOptions['onRateLimit'];
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
  'onRateLimit',
  'now',
]);
const PERCENTILES: Record<string, number> = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99 };
const HEDGE_FIELDS = new Set(['delayMs', ...Object.keys(DEFAULTS.hedgeFields)]);

type Input = Record<string, unknown>;

/** retries, baseDelayMs, maxDelayMs and jitter. */
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
    fail(where, 'maxDelayMs', `must be at most ${MAX_TIMER_MS} (2^31 - 1), got ${maxDelayMs}`);
  if (maxDelayMs < baseDelayMs)
    fail(where, 'maxDelayMs', `(${maxDelayMs}) must not be below baseDelayMs (${baseDelayMs})`);
  const jitter = own(input, 'jitter') ?? base?.jitter ?? DEFAULTS.jitter;
  if (!JITTERS.includes(jitter as JitterStrategy)) {
    fail(where, 'jitter', `must be one of ${JITTERS.join(', ')}, got ${shown(jitter)}`);
  }
  const retryAfter = own(input, 'retryAfter') ?? base?.retryAfter ?? DEFAULTS.retryAfter;
  if (retryAfter !== 'clamp' && retryAfter !== 'fail') {
    fail(where, 'retryAfter', `must be 'clamp' or 'fail', got ${shown(retryAfter)}`);
  }
  return {
    retries,
    baseDelayMs,
    maxDelayMs,
    jitter: jitter as JitterStrategy,
    retryAfter: retryAfter as 'clamp' | 'fail',
  };
}

/** statusCodes and errorCodes: the rows of the decision table a user may change. */
function tables(where: string, input: Input, base: ResolvedOptions | undefined) {
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
  return { statusCodes, errorCodes };
}

function deadline(where: string, value: unknown, fallback: number | undefined): number | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    fail(where, 'deadlineMs', `must be a finite number > 0, got ${shown(value)}`);
  }
  return value;
}

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
  const defaults = DEFAULTS.hedgeFields;
  const maxHedges = own(value, 'maxHedges') ?? defaults.maxHedges;
  if (typeof maxHedges !== 'number' || !Number.isSafeInteger(maxHedges) || maxHedges < 1 || maxHedges > 10) {
    fail(where, 'hedge.maxHedges', `must be a whole number from 1 to 10, got ${shown(maxHedges)}`);
  }
  return {
    delayMs: percentile === undefined ? (delay as number) : 0,
    percentile,
    maxHedges,
    minDelayMs: nonNegative(where, 'hedge.minDelayMs', own(value, 'minDelayMs'), defaults.minDelayMs),
    fallbackDelayMs: nonNegative(
      where,
      'hedge.fallbackDelayMs',
      own(value, 'fallbackDelayMs'),
      defaults.fallbackDelayMs,
    ),
  };
}

const REPLAY_FIELDS = new Set(Object.keys(DEFAULTS.replay));

function replayBound(where: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (!isPlainObject(value))
    fail(where, 'replay', `must be an object such as { maxBytes: 8388608 }, got ${shown(value)}`);
  checkKnown(`${where}replay.`, value, REPLAY_FIELDS);
  const maxBytes = own(value, 'maxBytes');
  if (maxBytes === undefined) return fallback;
  if (typeof maxBytes !== 'number' || !Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    fail(where, 'replay.maxBytes', `must be a positive whole number of bytes, got ${shown(maxBytes)}`);
  }
  return maxBytes;
}

/** The body factory: per request only (one body for every call of a plugin would make no sense). */
function bodyFactory(where: string, value: unknown, base: ResolvedOptions | undefined): (() => unknown) | undefined {
  if (value === undefined) return undefined;
  if (base === undefined)
    fail(where, 'body', "can be set only per request, in config.retry (it makes one call's body)");
  return fn<(() => unknown) | undefined>(where, 'body', value, undefined);
}

function attemptHeader(where: string, value: unknown, fallback: string | false): string | false {
  if (value === undefined) return fallback;
  if (value === false) return false;
  if (value === true) return DEFAULTS.attemptHeaderName;
  if (typeof value !== 'string' || !HEADER_NAME.test(value)) {
    fail(where, 'attemptHeader', 'must be false, true or a valid header name');
  }
  return value;
}

/**
 * Merges `input` over `base` (the plugin's resolved options, or the defaults) and validates the
 * result. Throws a `TypeError` naming the first wrong field.
 */
export function resolveCallOptions(input: Input, base: ResolvedOptions | undefined, where: string): ResolvedOptions {
  const hook = <K extends 'onRetry' | 'onGiveUp' | 'shouldRetry' | 'beforeAttempt' | 'onHedge'>(field: K) =>
    fn<ResolvedOptions[K]>(where, field, own(input, field), base?.[field]);
  const resolved: Omit<ResolvedOptions, 'plain'> = {
    ...waits(where, input, base),
    ...tables(where, input, base),
    ...resolveKeys(where, own(input, 'idempotencyKey'), base),
    deadlineMs: deadline(where, own(input, 'deadlineMs'), base?.deadlineMs),
    onRetry: hook('onRetry'),
    onGiveUp: hook('onGiveUp'),
    shouldRetry: hook('shouldRetry'),
    beforeAttempt: hook('beforeAttempt'),
    hedge: hedgeOptions(where, own(input, 'hedge'), base?.hedge ?? DEFAULTS.hedge),
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
    resolved.shouldRetry === undefined &&
    resolved.attemptHeader === false &&
    resolved.body === undefined;
  return { ...resolved, plain };
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
    rateLimit: resolveRateLimit(own(input, 'rateLimit')),
    onRateLimit: fn('', 'onRateLimit', own(input, 'onRateLimit'), undefined),
    now: fn('', 'now', own(input, 'now'), systemClock),
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
  return resolveCallOptions(field as RetryRequestOptions as Input, plugin, 'config.retry.');
}
