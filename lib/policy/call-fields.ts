import type { JitterStrategy, RetryPluginOptions } from '../types';
import type { ChaosSetting } from './chaos-options';
import { DEFAULTS, MAX_TIMER_MS } from './defaults';
import type { ResolvedHedge } from './hedge-options';
import type { KeySettings } from './key-options';
import { fail, fn, HEADER_NAME, nonNegative, optionsObject, own, wholeNumber } from './validate';

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

/* The fields of one call's options checked on their own (`options.ts` merges them all). */

const JITTERS: readonly JitterStrategy[] = ['full', 'equal', 'decorrelated', 'none'];

export type Input = Record<string, unknown>;

/**
 * retries, baseDelayMs, maxDelayMs and jitter. A base above the cap is allowed (retry-axios's
 * `retryDelay: 10000, maxRetryDelay: 5000`): `min(maxDelayMs, base × 2^n)` caps every wait.
 */
export function waits(where: string, input: Input, base: ResolvedOptions | undefined) {
  const retries = wholeNumber(where, 'retries', own(input, 'retries'), base?.retries ?? DEFAULTS.retries, 0);
  const delay = (field: 'baseDelayMs' | 'maxDelayMs') =>
    nonNegative(where, field, own(input, field), base?.[field] ?? DEFAULTS[field]);
  const baseDelayMs = delay('baseDelayMs');
  const maxDelayMs = delay('maxDelayMs');
  if (maxDelayMs > MAX_TIMER_MS) fail(where, 'maxDelayMs', 'E7', maxDelayMs);
  const jitter = own(input, 'jitter') ?? base?.jitter ?? DEFAULTS.jitter;
  if (!JITTERS.includes(jitter as JitterStrategy)) fail(where, 'jitter', 'E8', jitter, JITTERS);
  const retryAfter = own(input, 'retryAfter') ?? base?.retryAfter ?? DEFAULTS.retryAfter;
  if (retryAfter !== 'clamp' && retryAfter !== 'fail') fail(where, 'retryAfter', 'E9', retryAfter);
  return {
    retries,
    baseDelayMs,
    maxDelayMs,
    jitter: jitter as JitterStrategy,
    retryAfter: retryAfter as 'clamp' | 'fail',
  };
}

export function deadline(where: string, value: unknown, fallback: number | undefined): number | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) fail(where, 'deadlineMs', 'E10', value);
  return value;
}

const REPLAY_FIELDS = new Set(Object.keys(DEFAULTS.replay));

export function replayBound(where: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const maxBytes = own(optionsObject(where, 'replay', value, REPLAY_FIELDS, 'E11'), 'maxBytes');
  if (maxBytes === undefined) return fallback;
  if (typeof maxBytes !== 'number' || !Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    fail(where, 'replay.maxBytes', 'E12', maxBytes);
  }
  return maxBytes;
}

/** The body factory: per request only (one body for every call of a plugin would make no sense). */
export function bodyFactory(
  where: string,
  value: unknown,
  base: ResolvedOptions | undefined,
): (() => unknown) | undefined {
  if (value === undefined) return undefined;
  if (base === undefined) fail(where, 'body', 'E13');
  return fn<(() => unknown) | undefined>(where, 'body', value, undefined);
}

export function attemptHeader(where: string, value: unknown, fallback: string | false): string | false {
  if (value === undefined) return fallback;
  if (value === false) return false;
  if (value === true) return DEFAULTS.attemptHeaderName;
  if (typeof value !== 'string' || !HEADER_NAME.test(value)) fail(where, 'attemptHeader', 'E14', value);
  return value;
}
