import type { ResolvedOptions } from '../policy/options';
import type { RetryState, StopReason } from '../types';

/**
 * What the plugin keeps about one logical call besides its public `retryState`: made by the
 * request interceptor, read by the adapter and by the give-up reporter.
 */
export interface Call {
  /** The plugin that began the call (only its adapter runs it). */
  readonly owner: object;
  /** The call's options, resolved from `retry` (the request's `config.retry` when the call began). */
  options: ResolvedOptions;
  /** `config.retry` as the options were resolved from it: an interceptor that runs later may change it. */
  retry: unknown;
  /** A key this plugin generated for an earlier call that succeeded with this config: stale, replaced. */
  readonly staleKey: string | undefined;
  /**
   * A key this plugin generated for an earlier call that failed with this config (re-sent by hand):
   * the same operation, so the call keeps it, and it stays the plugin's key, not one the caller chose.
   */
  readonly ownKey: string | undefined;
  /** The adapter has taken the call: a second adapter run (a copied config) must not start it again. */
  started: boolean;
  /** The key this plugin generated for the call, if it did. */
  generatedKey: string | undefined;
  /**
   * The call's key is one its server dedupes: the caller set it, or the server is declared to
   * (`idempotencyKey.serverDedupes`). Only then is a write repeated after it may have been processed.
   */
  deduped: boolean;
  /** `onGiveUp` has been told about the call. */
  reported: boolean;
  /** Stops watching the call's `CancelToken` (`install.ts`), once the adapter has taken the call. */
  unwatch?: (() => void) | undefined;
}

/**
 * A call's `retryState`: the public fields of `RetryState` as own properties, and the plugin's
 * record of the call in a private field.
 *
 * A class, not a plain object, because axios's `mergeConfig` deep-copies plain objects but keeps
 * any other object as it is: a config re-sent by hand (or by axios-auth-refresh) carries this very
 * object, so the next call knows what became of the last one (see `beginCall`).
 */
export class CallState implements RetryState {
  attempts = 0;
  delaysMs: number[] = [];
  // `declare`: not own properties until set, so a success reads `{ attempts, delaysMs }`.
  declare idempotencyKey?: string;
  declare stopReason?: StopReason;
  declare hookError?: unknown;
  declare hedges?: number;
  declare hedgeWon?: boolean;
  declare retryAt?: number;
  declare injected?: number;
  readonly #call: Call;

  constructor(call: Call) {
    this.#call = call;
  }

  /** The plugin's record of the call whose `retryState` this is, or `undefined` for anything else. */
  static callOf(state: unknown): Call | undefined {
    return state instanceof CallState ? state.#call : undefined;
  }
}

/**
 * Begins a logical call with `options`. `previous` is the `retryState` the config already
 * carries when it is re-sent: re-sent after a success it is a new operation, and a key this
 * plugin generated for the last one is stale; re-sent after a failure it is the same operation
 * retried by hand, and keeps its key.
 */
export function beginCall(owner: object, options: ResolvedOptions, retry: unknown, previous: unknown): CallState {
  // Most configs are new: no `retryState` to look into.
  const last = previous === undefined ? undefined : CallState.callOf(previous);
  const succeeded = last !== undefined && (previous as CallState).stopReason === undefined;
  return new CallState({
    owner,
    options,
    retry,
    staleKey: succeeded ? last.generatedKey : undefined,
    ownKey: succeeded ? undefined : last?.generatedKey,
    started: false,
    generatedKey: undefined,
    deduped: false,
    reported: false,
  });
}
