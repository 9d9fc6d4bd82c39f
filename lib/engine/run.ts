import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { answeredBy } from './answered-by';
import { needsPreparing } from './body';
import { withChaos } from './chaos';
import type { Call, CallState } from './call';
import { contextOf, dispatch } from './context';
import type { CallContext, Shared } from './context';
import { continueAfter, runAttempts } from './loop';
import { noteSuccess } from './rate-gate';
import { guardAt } from './route';

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
  let context: CallContext;
  try {
    context = contextOf(config, call, state, base, shared);
  } catch (error) {
    // A key from a user's generator that is no valid header value, or a breaker.key() that throws.
    return Promise.reject(error);
  }
  const { options } = context;
  if (options.chaos !== false) context = withChaos(context, options.chaos);
  if (
    options.plain &&
    // An origin that never throttled: one field check. A throttled one's calls wait their turn in the loop.
    context.shared.limiters?.active(context.route.limiterKey) === undefined &&
    !context.route.corsSensitive &&
    !needsPreparing(config.data, options.retries) &&
    (context.route.guard?.closed ?? true)
  ) {
    return firstAttempt(context);
  }
  return runAttempts(context);
}

/**
 * The first attempt of a call that needs nothing but a send — no hook, hedge, deadline, predicate,
 * attempt header, body factory, FormData or stream body, and a closed breaker or none — which is most calls: one `then`
 * on the attempt's promise, and the attempt loop is built only if the attempt fails. (It does what
 * the loop's `send` does for a first attempt.)
 */
function firstAttempt(context: CallContext): Promise<AxiosResponse> {
  const { guard, budget } = context.route;
  const retry = (error: unknown): Promise<AxiosResponse> => continueAfter(context, { error }, guard !== undefined);
  budget?.deposit();
  context.state.attempts = 1;
  let sent: Promise<AxiosResponse>;
  try {
    sent = dispatch(context.base, context.config);
  } catch (error) {
    // A custom adapter that throws instead of rejecting.
    return retry(error);
  }
  const { shared, options } = context;
  const key = context.route.limiterKey;
  return sent.then((response) => {
    noteSuccess(shared, key, options.maxDelayMs, response);
    if (guard === undefined) return response;
    // Answered by the origin a redirect ended at: its breaker counts the success.
    const answeredAt = answeredBy({ response }, context.route.origin);
    const counter = answeredAt === undefined ? guard : guardAt(answeredAt, context.config, shared);
    return counter === undefined ? response : counter.succeed(response);
  }, retry);
}
