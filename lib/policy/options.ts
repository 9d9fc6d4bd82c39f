import type { RetryPluginOptions, RetryRequestOptions } from '../types';
import { DEFAULT_ERROR_CODES, DEFAULT_STATUS_CODES, DEFAULTS, MAX_TIMER_MS, systemClock } from './defaults';
import { resolveBreaker } from './breaker-options';
import type { ResolvedBreakerOptions } from './breaker-options';
import { resolveBudget } from './guard-options';
import type { ResolvedBudget } from './guard-options';
import { resolveChaos } from './chaos-options';
import { resolveRateLimit } from './rate-limit-options';
import { resolveDialects } from './rate-limit-header-options';
import type { Dialects } from './rate-limit-header-options';
import type { ResolvedRateLimit } from './rate-limit-options';
import { resolveHedge } from './hedge-options';
import type { ResolvedHedge } from './hedge-options';
import { resolveKeys } from './key-options';
import { attemptHeader, bodyFactory, deadline, replayBound, waits } from './call-fields';
import type { Input, ResolvedOptions } from './call-fields';
import { resolveTables } from './table-options';
import { checkKnown, fail, flag, fn, isPlainObject, own } from './validate';

export { DEFAULT_ERROR_CODES, DEFAULT_STATUS_CODES, MAX_TIMER_MS };
export type { ResolvedBreakerOptions, ResolvedHedge, ResolvedOptions };

/**
 * Option resolution, in one place: the plugin's options over the defaults (`defaults.ts`), and a
 * request's `config.retry` over the plugin's, validated as they are merged.
 */

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
/** The plugin's option names: what a message says of a wrong name at the top of the options depends on them. */
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
  if (!isPlainObject(input)) fail('', 'options', 'E15', input);
  checkKnown('', input, PLUGIN_FIELDS, PLUGIN_FIELDS);
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
  if (field === true) fail('config.retry', '', 'E16');
  if (!isPlainObject(field)) fail('config.retry', '', 'E17', field);
  checkKnown('config.retry.', field, CALL_FIELDS, PLUGIN_FIELDS);
  return resolveCallOptions(field as RetryRequestOptions as Input, plugin, 'config.retry.');
}
