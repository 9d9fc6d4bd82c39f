/** The per-request options: `config.retry`. */
import type { IdempotencyKeyOptions } from './part-options';
import type { RetryPluginOptions } from './options';

/**
 * The per-request `retry` field: `false` leaves the call alone, an object overrides plugin options
 * for this call. Budget and breaker are the plugin's and cannot be changed per request, so a call
 * cannot grant itself more budget.
 */
export interface RetryRequestOptions extends Omit<
  RetryPluginOptions,
  | 'budget'
  | 'breaker'
  | 'idempotencyKey'
  | 'onCircuitStateChange'
  | 'now'
  | 'rateLimit'
  | 'rateLimitHeaders'
  | 'onRateLimit'
  | 'chaos'
> {
  /**
   * `false`: no fault is injected into this call (faults are set on the plugin).
   * @default the plugin's `chaos`
   */
  chaos?: false;
  /**
   * A string pins the key for this call; `false` sends none; an object overrides the settings.
   * @default the plugin's `idempotencyKey` setting
   */
  idempotencyKey?: string | false | IdempotencyKeyOptions;
  /**
   * Makes the body of each retry afresh, so an upload of any size can be retried without the plugin
   * keeping it: `body: () => fs.createReadStream(path)`. The first attempt sends the request's own
   * data; each retry sends what this returns (a string, Buffer, ArrayBuffer, typed array, Blob,
   * FormData, URLSearchParams or stream, as an adapter takes it: `transformRequest` does not run
   * again). May return a promise. If it throws, or returns something else, the call fails with that
   * error (stop reason `'hook-failed'`), and nothing more is sent.
   * @default undefined
   */
  body?: () => unknown;
}
