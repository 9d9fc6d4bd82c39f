/**
 * The browser build's `policy/rate-limit-header-options.ts`: no rate-limit header dialect is read by
 * default (`Retry-After`, `retry-after-ms` and `x-should-retry` are); `rateLimitHeaders()` from
 * `axios-resilience/rate-limit-headers` brings their readers on the option value, for the plugin it is
 * given to. Any other value (a plain `{ dialects: 'all' }`) is a `TypeError` that names the import.
 */
import type * as Options from '../policy/rate-limit-header-options';
import type { Dialects } from '../policy/rate-limit-header-options';
import { capabilityOf, notCarried } from './capability';

export type { Dialects };

export const resolveDialects: typeof Options.resolveDialects = (value) => {
  if (value === undefined || value === false) return undefined;
  const code = capabilityOf<Dialects>(value);
  return code ?? notCarried('', 'rateLimitHeaders', 'rateLimitHeaders', 'axios-resilience/rate-limit-headers', '');
};
