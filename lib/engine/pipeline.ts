import type { InternalAxiosRequestConfig } from 'axios';
import type { Attempt, CallRun } from './call-run';
import { dispatch } from './context';
import { hedgeable, hedgedSend } from './hedge';
import { takeTurn } from './rate-gate';
import type { Halt } from './stop';

/**
 * One attempt's way from the retry loop to the caller's adapter, as a chain of strategies composed
 * once per plugin (`attemptChain`, from `plugin/parts.ts`), the way undici composes its
 * interceptors: each strategy is `(next) => send`, owns one rule, and hands back what happened as a
 * value — an attempt's response or error, or the fact that stopped it before it was sent (`Halt`,
 * which `stop.ts` names) — never a throw. A rule a plugin cannot use is not in its chain at all.
 *
 * In order: the scope's rate limit (`pacing`: its turn at the gate), the deadline (`deadline`: the
 * attempt's timeout is the time left), then the send itself (`attempt`: counted, numbered, hedged
 * when it may be).
 */

/** What one attempt came to: an answer or a failure, or what stopped it before it went out. */
export type Sent = Attempt | { halt: Halt };

/** Sends one attempt of `run` with `config`. Never rejects. */
export type Send = (run: CallRun, config: InternalAxiosRequestConfig) => Promise<Sent>;

/** One rule around the rest of the chain. */
export type Strategy = (next: Send) => Send;

/** `strategies` around `last`, the first outermost; `undefined` entries are left out. */
export function compose(strategies: ReadonlyArray<Strategy | undefined>, last: Send): Send {
  return strategies.reduceRight<Send>((next, strategy) => (strategy === undefined ? next : strategy(next)), last);
}

/** The chain of a plugin's attempts; `paced`: the plugin has rate limiters (`rateLimit` is not `false`). */
export function attemptChain(paced: boolean): Send {
  return compose([paced ? pacing : undefined, deadline], attempt);
}

/** Waits the attempt's turn while its scope's limiter is on; a turn refused stops the call (`rate-gate.ts`). */
const pacing: Strategy = (next) => (run, config) => {
  const turn = takeTurn(run);
  // Not paced: no promise to wait for, as before the limiter existed.
  if (turn === undefined) return next(run, config);
  return turn.then((refused) => (refused === undefined ? next(run, config) : { halt: refused }));
};

/** With a deadline, the attempt's timeout is the time it leaves; none left, the call stops (`deadline.ts`). */
const deadline: Strategy = (next) => (run, config) => {
  const clipped = run.deadline.clip(config);
  return clipped === undefined ? Promise.resolve({ halt: { how: 'expired' } }) : next(run, clipped);
};

/** Sends the attempt: counted (the budget's request, the retry token's spending), numbered, hedged when it may be. */
const attempt: Send = (run, config) => {
  const { options, state } = run;
  run.sent();
  run.token.spend();
  if (options.attemptHeader !== false) run.config.headers.set(options.attemptHeader, String(state.attempts));
  let sent;
  try {
    sent =
      options.hedge !== false && hedgeable(run) ? hedgedSend(run, options.hedge, config) : dispatch(run.base, config);
  } catch (error) {
    // A custom adapter that throws instead of rejecting.
    return Promise.resolve({ error });
  }
  return sent.then(
    (response) => ({ response }),
    (error: unknown) => ({ error }),
  );
};
