import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { needsPreparing } from './body';
import type { Call, CallState } from './call';
import { startRun } from './call-run';
import type { CallRun } from './call-run';
import type { Shared } from './context';
import { runAttempts } from './loop';
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
  let run: CallRun;
  try {
    run = startRun(config, call, state, base, shared);
  } catch (error) {
    // A key from a user's generator that is no valid header value, or a breaker.key() that throws.
    return Promise.reject(error);
  }
  const { options, route } = run;
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
  return runAttempts(run.retrying(false), undefined);
}

/**
 * The first attempt of a call that needs nothing but a send — no hook, hedge, deadline, predicate,
 * attempt header, body factory, FormData or stream body, and a closed breaker or none — which is
 * most calls: the attempt chain's last link alone (`CallRun.dispatch`), one `then` on its promise, and the
 * attempt loop takes the call only if the attempt fails.
 */
function firstAttempt(run: CallRun): Promise<AxiosResponse> {
  const { guard } = run.route;
  return run.dispatch(run.config).then(
    (response) => {
      noteSuccess(run, response);
      if (guard === undefined) return response;
      // Answered by the origin a redirect ended at: its breaker counts the success.
      const answeredAt = answeredBy({ response }, run.route.origin);
      const counter = answeredAt === undefined ? guard : guardAt(run, answeredAt);
      counter?.succeeded(response, run.endpoint);
      return response;
    },
    (error: unknown) => runAttempts(run.retrying(guard !== undefined), { error }),
  );
}
