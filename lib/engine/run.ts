import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { needsPreparing } from './body';
import { withChaos } from './chaos';
import type { Call, CallState } from './call';
import { startRun } from './call-run';
import type { CallStart } from './call-run';
import type { Shared } from './context';
import { continueAfter, runAttempts } from './loop';
import { activeLimiter, noteSuccess } from './rate-gate';
import { answeredBy, guardAt } from './redirects';

/**
 * The engine's entry: one logical call over `base`, the caller's adapter. Request and response
 * transforms and interceptors are outside it, so they run once per call and every attempt sends
 * the same bytes.
 */
export function runCall(
  config: InternalAxiosRequestConfig,
  call: Call,
  state: CallState,
  base: AxiosAdapter,
  shared: Shared,
): Promise<AxiosResponse> {
  let run: CallStart;
  try {
    run = startRun(config, call, state, base, shared);
  } catch (error) {
    // A key from a user's generator that is no valid header value, or a breaker.key() that throws.
    return Promise.reject(error);
  }
  const { options, route } = run;
  if (options.chaos !== false) withChaos(run, options.chaos);
  if (
    options.plain &&
    // Nothing paced anywhere: one field check. A paced scope's calls wait their turn in the loop.
    (shared.limiters === undefined || shared.limiters.engaged === 0 || activeLimiter(run) === undefined) &&
    !route.corsSensitive &&
    !needsPreparing(config.data, options.retries) &&
    (route.guard?.closed ?? true)
  ) {
    return firstAttempt(run);
  }
  return runAttempts(run);
}

/**
 * The first attempt of a call that needs nothing but a send — no hook, hedge, deadline, predicate,
 * attempt header, body factory, FormData or stream body, and a closed breaker or none — which is most calls: one `then`
 * on the attempt's promise, and the attempt loop is built only if the attempt fails. (It does what
 * the loop's `send` does for a first attempt.)
 */
function firstAttempt(run: CallStart): Promise<AxiosResponse> {
  const { guard } = run.route;
  const retry = (error: unknown): Promise<AxiosResponse> => continueAfter(run, { error }, guard !== undefined);
  run.sent();
  let sent: Promise<AxiosResponse>;
  try {
    // `dispatch`, inlined: a custom adapter may hand back a thenable.
    sent = Promise.resolve(run.base(run.config));
  } catch (error) {
    // A custom adapter that throws instead of rejecting.
    return retry(error);
  }
  return sent.then((response) => {
    noteSuccess(run, response);
    if (guard === undefined) return response;
    // Answered by the origin a redirect ended at: its breaker counts the success.
    const answeredAt = answeredBy({ response }, run.route.origin);
    const counter = answeredAt === undefined ? guard : guardAt(run, answeredAt);
    counter?.succeeded(response, run.endpoint);
    return response;
  }, retry);
}
