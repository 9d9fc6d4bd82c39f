import type { RetryRequestOptions, RetryState } from './types';

declare module 'axios' {
  interface AxiosRequestConfig {
    /**
     * Per-request retry settings: `false` leaves this call alone (no key, no retry, no budget, no
     * breaker); an object overrides the plugin's options for this call.
     */
    retry?: false | RetryRequestOptions;
    /** Set by axios-resilience on every call it handled: attempts, chosen waits, key, stop reason. */
    retryState?: RetryState;
  }
}
