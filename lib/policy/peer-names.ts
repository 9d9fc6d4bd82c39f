/**
 * Option names of the other axios retry plugins (axios-retry, retry-axios's `raxConfig`) and of
 * got's and ky's `retry` options, each with what to write here instead: someone moving from one of
 * them writes its names first, and "did you mean retryAfter?" for `retry: 3` helps nobody. Names
 * they share with us (`retries`, `shouldRetry`, `statusCodes`, `errorCodes`, `jitter`, `delay`) are
 * ours already and never reach this list.
 */

/**
 * A peer's option name → the rest of the message after the name. Made when a message needs it, so a
 * production bundle, which never reads messages (`messages.ts`), drops it all.
 */
export function peerNames(): Readonly<Record<string, string>> {
  const use = (ours: string): string => `is not an option here; use ${ours}`;
  const methods =
    'is not an option here: POST and PATCH are retried with idempotencyKey.serverDedupes or unsafeRetryWrites';
  return {
    retry: 'is the per-request field; for the number of retries use retries',
    limit: use('retries'),
    noResponseRetries: use('retries; network failures are in errorCodes'),
    retryCondition: use('shouldRetry (writes stay guarded)'),
    validateResponse: use('shouldRetryResponse'),
    retryDelay: use('delay, or baseDelayMs for a number'),
    calculateDelay: use('delay'),
    backoffType: use('jitter'),
    backoffLimit: use('maxDelayMs'),
    maxRetryDelay: use('maxDelayMs'),
    maxRetryAfter: use("maxDelayMs with retryAfter: 'fail'"),
    checkRetryAfter: 'is not needed: Retry-After is always honoured',
    shouldResetTimeout: "is not needed: each attempt gets axios's whole timeout; deadlineMs bounds the call",
    statusCodesToRetry: use('statusCodes'),
    httpMethodsToRetry: methods,
    methods,
    onRetryAttempt: use('onRetry'),
    onMaxRetryTimesExceeded: use('onGiveUp'),
  };
}
