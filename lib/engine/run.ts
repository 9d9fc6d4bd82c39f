import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { attachKey, keysCall } from '../policy/idempotency';
import { originOf } from '../policy/origin';
import { needsPreparing } from './body';
import type { Call, CallState } from './call';
import { CallRun } from './call-run';
import { withChaos } from './chaos';
import type { Shared } from './context';
import { loop, runAttempts } from './loop';
import { activeLimiter, noteSuccess } from './rate-gate';
import { answeredBy, guardAt } from './redirects';

/**
 * The engine's entry: one logical call over `base`, the caller's adapter. Request and response
 * transforms and interceptors are outside it, so they run once per call and every attempt sends
 * the same bytes.
 *
 * The call is made here, complete (`CallRun`): its origin, its budget and breaker, its adapter (with
 * fault injection, when the call has `chaos`), and its Idempotency-Key, attached once per logical
 * call, after every request interceptor. A key from a user's generator that is no valid header
 * value, or a `breaker.key()` that throws, fails the call with that error, before anything is sent.
 *
 * Most calls need nothing but a send — no hook, hedge, deadline, predicate, attempt header, body
 * factory, FormData or stream body, and a closed breaker or none: for them the attempt chain's last
 * link alone (`CallRun.dispatch`), one `then` on its promise, and the attempt loop takes the call
 * only if the attempt fails.
 */
export function runCall(
  config: InternalAxiosRequestConfig,
  call: Call,
  state: CallState,
  base: AxiosAdapter,
  shared: Shared,
): Promise<AxiosResponse> {
  const options = call.options;
  const lower = config.method ?? 'get';
  const method = UPPER.get(lower) ?? lower.toUpperCase();
  const origin = originOf(config.url, config.baseURL);
  let run: CallRun;
  try {
    // A call the plugin does not key (a GET) is looked at for a key of the caller's only if it fails.
    const key = keysCall(method, options, call.staleKey)
      ? attachKey(config.headers, method, options, call.staleKey)
      : undefined;
    if (key !== undefined) {
      // The plugin's own key on a config re-sent after a failure is still the plugin's; a key of the
      // caller's is deduped by its server, one of the plugin's where the server is declared to.
      const generated = key.generated || key.key === call.ownKey;
      state.idempotencyKey = key.key;
      if (generated) call.generatedKey = key.key;
      call.deduped = !generated || (options.idempotencyKey !== false && options.idempotencyKey.serverDedupes(origin));
    }
    const sender =
      options.chaos === false ? base : withChaos(base, options.chaos, state, shared, options.attemptHeader);
    run = new CallRun(config, call, state, sender, shared, method, origin);
  } catch (error) {
    return Promise.reject(error);
  }
  const { route } = run;
  if (
    !options.plain ||
    // Nothing paced anywhere: one field check. A paced scope's calls wait their turn in the loop.
    (shared.limiters !== undefined && shared.limiters.engaged !== 0 && activeLimiter(run) !== undefined) ||
    route.corsSensitive ||
    needsPreparing(config.data, options.retries) ||
    !(route.guard?.closed ?? true)
  ) {
    return runAttempts(run.retrying(false));
  }
  const { guard } = route;
  return run.dispatch(config).then(
    (response) => {
      noteSuccess(run, response);
      if (guard === undefined) return response;
      // Answered by the origin a redirect ended at: its breaker counts the success.
      const answeredAt = answeredBy({ response }, route.origin);
      const counter = answeredAt === undefined ? guard : guardAt(run, answeredAt);
      counter?.succeeded(response, run.endpoint);
      return response;
    },
    // Begun under a closed breaker (or none), the call is counted there already: the loop takes it on.
    (error: unknown) => loop(run.retrying(guard !== undefined), { error }),
  );
}

/** axios lower-cases the method; the decision table and the key settings speak upper case. */
const UPPER = new Map(['get', 'post', 'put', 'patch', 'delete', 'head', 'options'].map((m) => [m, m.toUpperCase()]));
