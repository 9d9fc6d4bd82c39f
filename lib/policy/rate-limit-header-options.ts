/**
 * The plugin's `rateLimitHeaders` option: which rate-limit header dialects its answers are read for
 * (`rate-limit-dialects.ts`). In Node every dialect is read unless it is `false`; a browser build
 * carries them only where `rateLimitHeaders()` from `axios-resilience/rate-limit-headers` brings them
 * (`browser/rate-limit-header-options.ts`), per plugin: nothing is set for the page.
 */
import { mayBeSpent, parseRateLimitHeaders } from './rate-limit-dialects';
import { policyRate, spentForMs } from './rate-limit-headers';
import { fail, optionsObject, own } from './validate';

/** The hint an answer's fields give, whether a success may say the quota is spent, and the hint's wait and rate. */
export interface Dialects {
  parseRateLimitHeaders: typeof parseRateLimitHeaders;
  mayBeSpent: typeof mayBeSpent;
  spentForMs: typeof spentForMs;
  policyRate: typeof policyRate;
}

/** Every dialect's readers: what Node reads by default, and what `rateLimitHeaders()` brings to a browser build. */
export const EVERY_DIALECT: Dialects = { parseRateLimitHeaders, mayBeSpent, spentForMs, policyRate };
const FIELDS = new Set(['dialects']);

/** `undefined`: only `Retry-After`, `retry-after-ms` and `x-should-retry` are read. */
export function resolveDialects(value: unknown): Dialects | undefined {
  if (value === false) return undefined;
  if (value === undefined) return EVERY_DIALECT;
  checkDialects(value);
  return EVERY_DIALECT;
}

/** The value `rateLimitHeaders()` returns (`{ dialects: 'all' }`), or a `TypeError` naming the field. */
function checkDialects(value: unknown): void {
  const dialects = own(optionsObject('', 'rateLimitHeaders', value, FIELDS, 'E44'), 'dialects');
  if (dialects !== 'all') fail('', 'rateLimitHeaders.dialects', 'E45', dialects);
}
