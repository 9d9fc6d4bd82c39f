/**
 * Log lines for retries, give-ups and breaker changes, for pino (or any logger with pino's
 * `(object, message)` signature). One line per event, flat fields, no request bodies or headers:
 * an Idempotency-Key is safe to log, an Authorization header is not.
 *
 * Its imports are the package's (the repository's tsconfig and jest map `axios-resilience` to the
 * sources, so it is tested with them): copy it as it is.
 */
import axios from 'axios';
import type { AxiosRequestConfig } from 'axios';
import type { CircuitStateChange, GiveUpEvent, RetryEvent, RetryPluginOptions } from 'axios-resilience';

/** The part of a pino logger used here; `pino()` satisfies it. */
export interface LogLike {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Origin and path of the request, baseURL applied; the query string is left out (it may carry tokens). */
function urlOf(config: AxiosRequestConfig | undefined): string | undefined {
  if (config === undefined) return undefined;
  const url = new URL(axios.getUri(config), 'http://relative.invalid');
  return url.origin === 'http://relative.invalid' ? url.pathname : `${url.origin}${url.pathname}`;
}

/** Hooks to spread into `retryPlugin({ ...retryLogging(logger) })`. */
export function retryLogging(
  logger: LogLike,
): Pick<RetryPluginOptions, 'onRetry' | 'onGiveUp' | 'onCircuitStateChange'> {
  return {
    onRetry(event: RetryEvent) {
      logger.warn(
        {
          method: event.config.method?.toUpperCase(),
          url: urlOf(event.config),
          attempt: event.attempt,
          reason: event.reason,
          delayMs: event.delayMs,
          delaySource: event.delaySource,
          idempotencyKey: event.config.retryState?.idempotencyKey,
        },
        'retrying request',
      );
    },
    onGiveUp(event: GiveUpEvent) {
      const config = (event.error as { config?: AxiosRequestConfig }).config;
      logger.error(
        {
          method: config?.method?.toUpperCase(),
          url: urlOf(config),
          stopReason: event.stopReason,
          attempts: event.retryState.attempts,
          delaysMs: event.retryState.delaysMs,
        },
        'request failed for good',
      );
    },
    onCircuitStateChange(change: CircuitStateChange) {
      const fields = { origin: change.origin, state: change.state };
      if (change.state === 'open') logger.error(fields, 'circuit opened');
      else logger.info(fields, `circuit ${change.state}`);
    },
  };
}
