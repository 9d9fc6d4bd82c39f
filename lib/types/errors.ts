import { AxiosError } from 'axios';
import type { InternalAxiosRequestConfig } from 'axios';

/**
 * Thrown instead of sending when the breaker for the call's origin is open: nothing left the
 * process. `cause` is the last real failure of this call, when it had one.
 */
export class CircuitOpenError extends AxiosError {
  /** `scheme://host:port` whose breaker is open. */
  readonly origin: string;

  /**
   * The last real failure of this call, if it had one before the breaker refused it: an
   * `AxiosError` from axios's own adapters, or whatever `Error` a custom adapter threw (with no
   * `response`). Typed so that `error.cause?.response?.status` compiles.
   */
  declare cause?: AxiosError | (Error & { response?: undefined });

  constructor(origin: string, config: InternalAxiosRequestConfig, cause?: unknown) {
    super(`axios-resilience: circuit open for ${origin}; the request was not sent`, CircuitOpenError.code, config);
    this.name = 'CircuitOpenError';
    this.origin = origin;
    if (cause !== undefined) {
      // Non-enumerable, as axios does for its own causes: the cause holds sockets that loggers
      // walking own properties would choke on.
      Object.defineProperty(this, 'cause', { value: cause, writable: true, enumerable: false, configurable: true });
    }
  }

  /** The breaker's code, also on `error.code`. */
  static readonly code = 'ERR_CIRCUIT_OPEN';
}
