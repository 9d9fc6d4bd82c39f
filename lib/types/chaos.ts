/** Fault injection inside the client (`chaos`): the faults a user configures and how injected outcomes are marked. */

/** Which attempts a fault applies to; every field given must match (no field: every attempt). */
export interface ChaosMatch {
  /** `scheme://host[:port]` of the attempt (`'https://api.example.com'`), or a list of them. */
  origin?: string | readonly string[];
  /** The method, case-insensitive (`'POST'`), or a list of them. */
  method?: string | readonly string[];
  /**
   * The URL path, without the query string: a string matches that path and every path below it
   * (`'/v1/payments'` matches `/v1/payments` and `/v1/payments/42`); a RegExp is tested against it.
   */
  path?: string | RegExp;
}

/** What every fault has, whatever it injects. */
export interface ChaosFaultBase {
  /** The share of matching attempts that get the fault, from 0 to 1 (`0.02`: 2 %). */
  rate: number;
  /**
   * Which attempts it applies to.
   * @default every attempt
   */
  match?: ChaosMatch;
  /**
   * `'before'`: the attempt never reaches the network and ends as the fault says (`latencyMs`
   * delays the real send). `'after'`: the real request is sent and answered, the answer is
   * dropped, and the attempt ends as the fault says: the origin did the work, the client saw a
   * failure (`latencyMs` delays the answer). An attempt that failed without an answer keeps its
   * own failure.
   * @default 'before'
   */
  phase?: 'before' | 'after';
}

/** Injects a response: an `AxiosError` with this `response`, as axios makes one (or the response, when `validateStatus` accepts it). */
export interface ChaosStatusFault extends ChaosFaultBase {
  /** The status, 400 to 599. */
  status: number;
  /**
   * Response headers, such as `{ 'Retry-After': '5' }`.
   * @default {}
   */
  headers?: Record<string, string>;
  /**
   * The response body: a string as it is, anything else as JSON.
   * @default ''
   */
  body?: unknown;
  error?: never;
  latencyMs?: never;
}

/**
 * Injects a network error by its code: `'ECONNRESET'`, `'ECONNREFUSED'`, `'ETIMEDOUT'`,
 * `'ECONNABORTED'` (axios's timeout), `'ENOTFOUND'`, `'EAI_AGAIN'`, `'EPIPE'`, `'ENETUNREACH'`,
 * `'EHOSTUNREACH'`, `'ENETDOWN'`, `'EHOSTDOWN'` or `'ERR_NETWORK'`. The error is the one the
 * attempt's adapter makes for that failure: over `http`, an `AxiosError` with that `code`; over
 * `fetch`, `ERR_NETWORK` with the code on its `cause` (a reset is undici's `UND_ERR_SOCKET`, a
 * timeout `ETIMEDOUT`); over `xhr`, `ERR_NETWORK` (a browser says no more), a timeout
 * `ECONNABORTED`.
 */
export interface ChaosErrorFault extends ChaosFaultBase {
  error: string;
  status?: never;
  headers?: never;
  body?: never;
  latencyMs?: never;
}

/**
 * Adds latency, in ms, counted against the attempt's `timeout` as a slow network would be: a
 * latency that reaches it ends the attempt with the adapter's timeout error at the timeout.
 */
export interface ChaosLatencyFault extends ChaosFaultBase {
  latencyMs: number;
  status?: never;
  headers?: never;
  body?: never;
  error?: never;
}

/** One fault: a rate, what it matches, its phase, and exactly one of `status`, `error` or `latencyMs`. */
export type ChaosFault = ChaosStatusFault | ChaosErrorFault | ChaosLatencyFault;

/** Fault injection settings (see `chaos`). */
export interface ChaosOptions {
  /**
   * The faults. For each attempt they are tried in order: the first latency fault chosen adds its
   * latency, and the first status or error fault chosen decides the outcome.
   */
  faults: readonly ChaosFault[];
  /**
   * Makes the choice repeatable: two plugins with the same seed, given the same attempts in the
   * same order, inject on the same attempts. A whole number.
   * @default undefined (Math.random)
   */
  seed?: number;
  /**
   * `false` turns every fault off (an environment switch: `enabled: process.env.CHAOS === '1'`).
   * @default true
   */
  enabled?: boolean;
}

/**
 * How an injected outcome is marked: `error.injected` on an injected failure (and on a response an
 * injected status resolved with, when `validateStatus` accepted it).
 */
export interface ChaosInjection {
  /** The index of the fault in `chaos.faults`. */
  fault: number;
  /** The fault's phase. */
  phase: 'before' | 'after';
  /** What was injected: the status, the error code asked for, or `'latency'` (a latency that reached the timeout). */
  kind: number | string;
}
