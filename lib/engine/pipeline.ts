import type { AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import type { ResolvedHedge, ResolvedOptions } from '../policy/options';
import type { CallRun } from './call-run';
import { hedgeable, hedgedSend as race } from './hedge';
import { runHook } from './hooks';
import { takeTurn } from './rate-gate';
import type { Halt } from './stop';

/**
 * One attempt's way from the retry loop to the caller's adapter, as a chain of strategies composed
 * once per resolved options (`attemptChain`), the way undici composes its
 * interceptors: each strategy is `(next) => send`, owns one rule, and hands back what happened as a
 * value — an attempt's response or error, or the fact that stopped it before it was sent (`Halt`,
 * which `stop.ts` names) — never a throw. A rule a plugin cannot use is not in its chain at all.
 *
 * In order: the scope's rate limit (`pacing`: its turn at the gate), the hooks (`hooked`: `beforeAttempt`
 * and a moved route, right before the send), the deadline (`deadline`: the
 * attempt's timeout is the time left), then the send itself, counted and numbered: over the caller's
 * adapter (`send`), or as a race of hedged copies when the options hedge (`hedgedSend`).
 */

/** What one attempt ended in: the response axios's adapter resolved with, or the failure. */
export type Attempt = { response: AxiosResponse; error?: undefined } | { error: unknown; response?: undefined };

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

/** The chains composed so far, one per resolved options (the plugin's, or a call's own `config.retry`). */
const chains = new WeakMap<ResolvedOptions, Send>();

/** The chain `run`'s attempts go down. */
export function attemptChain(run: CallRun): Send {
  return chains.get(run.options) ?? chainFor(run.options, run.shared.limiters !== undefined);
}

/**
 * The chain of attempts with `options`, composed once: for the plugin's options when the plugin is
 * made (`plugin/parts.ts`), for a call's own `config.retry` when that call first retries. A rule the
 * options leave out (no deadline, no hedging; `paced`: the plugin has rate limiters) is not in it.
 */
export function chainFor(options: ResolvedOptions, paced: boolean): Send {
  const chain = compose(
    [
      paced ? pacing : undefined,
      options.beforeAttempt === undefined && options.onRetry === undefined ? undefined : hooked,
      options.deadlineMs === undefined ? undefined : deadline,
    ],
    options.hedge === false ? send : hedgedSend,
  );
  chains.set(options, chain);
  return chain;
}

/** Waits the attempt's turn while its scope's limiter is on; a turn refused stops the call (`rate-gate.ts`). */
const pacing: Strategy = (next) => (run, config) => {
  const turn = takeTurn(run);
  // Not paced: no promise to wait for, as before the limiter existed.
  if (turn === undefined) return next(run, config);
  return turn.then((refused) => (refused === undefined ? next(run, config) : { halt: refused }));
};

/**
 * Right before the send, once the attempt's turn has come: `beforeAttempt`, then the route a hook moved
 * the call to (`CallRun.follow`), whose guards may refuse it. Only with a hook (`onRetry` can move it too).
 */
const hooked: Strategy = (next) => async (run, config) => {
  const hook = run.options.beforeAttempt;
  if (hook !== undefined) {
    const info = { attempt: run.state.attempts + 1, timeLeftMs: run.deadline?.timeLeft() };
    const ended = await runHook(() => hook(config, info), run, info.timeLeftMs);
    if (ended.how !== 'done') return { halt: ended };
  }
  let moved: Halt | undefined;
  try {
    moved = await run.follow();
  } catch (error) {
    // breaker.key() threw for the new origin: its error is the call's.
    return { halt: { how: 'failed', error, own: true } };
  }
  return moved === undefined ? next(run, config) : { halt: moved };
};

/** With a deadline, the attempt's timeout is the time it leaves; none left, the call stops (`Deadline`, `hooks.ts`). */
const deadline: Strategy = (next) => (run, config) => {
  // In the chain only with a deadline (`chainFor`): the call has one.
  const clipped = run.deadline!.clip(config);
  return clipped === undefined ? Promise.resolve({ halt: { how: 'expired' } }) : next(run, clipped);
};

/** Sends the attempt over the caller's adapter. */
const send: Send = (run, config) => run.dispatch(config).then(answered, failed);

/** Sends the attempt as a race of copies when it may be sent twice (`hedge.ts`), else as `send` does. */
const hedgedSend: Send = (run, config) => {
  if (!hedgeable(run)) return send(run, config);
  return run.dispatch(config, (copy) => race(run, run.options.hedge as ResolvedHedge, copy)).then(answered, failed);
};

const answered = (response: AxiosResponse): Sent => ({ response });
const failed = (error: unknown): Sent => ({ error });
