import { BoundedMap } from './origins';
import { RATE_RULE } from './rate-state';

/**
 * Whether a scope's bare refusals (a 429 with no hint: no wait, no rate-limit field) show that the
 * rate causes them. One engages nothing by itself: a server that refuses a share of calls at random
 * refuses it at any rate, and pacing every other call for it made them slower than plain axios. Such
 * refusals engage their scope's limiter only once they are a share of its answers no chance could
 * make (at least `EVIDENCE.refusals` of them, within an `EVIDENCE.windowMs` window): half of them,
 * held for `EVIDENCE.soonestMs` (a storm), or a fifth, held for `EVIDENCE.heldMs`. Until then each
 * refused call waits its own backoff, as a 503's would.
 *
 * A refusal sent with more of the plugin's requests in flight to the origin than all but a few
 * (`EVIDENCE.fewOk`) of its successes had, where most of the scope's refusals were, is one the
 * server's load explains (a server allowing N in flight): the call's retry is absorbed (`'load'`:
 * `Pushback.absorbed`), not paced: a cap on requests in flight, measured, served such a server below
 * plain axios (a freed place waits for the client's turnaround, where uncapped callers fill it at
 * once). A server refusing at random refuses at every load: its refusals come with as many in
 * flight as its successes do.
 */
export const EVIDENCE = {
  refusals: 5,
  storm: 0.5,
  soonestMs: 200,
  share: 0.2,
  heldMs: 1000,
  windowMs: 2000,
  fewOk: 0.1,
  believedOk: 20,
} as const;

/** Requests in flight alongside a send are counted up to this many (more is "this many"). */
const MOST_ALONGSIDE = 31;

/**
 * One origin's current evidence window: bare refusals per scope key (how many, and how many the load
 * explains), the origin's successes, and how many were sent with each number of others in flight
 * (`okAlongside`). `inFlight` is the plugin's attempts at the origin now, counted from the window's
 * first refusal on, across windows.
 */
interface Window {
  refusals: Map<string, { refused: number; explained: number }>;
  successes: number;
  okAlongside: number[];
  start: number;
  inFlight: number;
}

/** What a bare refusal showed: the rate is the cause (the rate the origin was served at), its load is, or nothing yet. */
export type Evidence = { served: number } | 'load' | undefined;

/** An attempt sent while its origin's bare refusals are weighed: its origin's window, and how many others were in flight there. */
export interface Sending {
  readonly window: Window;
  readonly alongside: number;
}

/**
 * The evidence windows of a plugin's origins. `scopes.weighing` counts the scopes whose bare refusals
 * are being weighed (the limiters' field, read on every success: while it is 0, a success counts nothing).
 * Its two questions are arrow functions, so the limiters hand them out as their own, at no extra call.
 */
export class BareRefusals {
  private readonly windows: BoundedMap<Window>;

  constructor(
    maxOrigins: number,
    private readonly scopes: { weighing: number },
  ) {
    this.windows = new BoundedMap(maxOrigins, (window) => void (scopes.weighing -= window.refusals.size));
  }

  /**
   * A bare refusal of a call under `key` (`sent`: its attempt was counted going out): if it shows the
   * rate is the cause, the rate its origin was served at; `'load'` if the origin's load explains it.
   */
  readonly refused = (origin: string, key: string, now: number, sent?: Sending): Evidence => {
    const window = this.windows.getOrCreate(origin, () => ({
      refusals: new Map(),
      successes: 0,
      okAlongside: new Array<number>(MOST_ALONGSIDE + 1).fill(0),
      start: -Infinity,
      inFlight: 0,
    }));
    const span = this.turn(window, now);
    let seen = window.refusals.get(key);
    if (seen === undefined) {
      this.scopes.weighing++;
      window.refusals.set(key, (seen = { refused: 0, explained: 0 }));
    }
    const refused = ++seen.refused;
    const explained = sent?.window === window && loadExplains(window, sent.alongside);
    if (explained) seen.explained++;
    const share = refused / (refused + window.successes);
    const shown =
      refused >= EVIDENCE.refusals &&
      ((span >= EVIDENCE.soonestMs && share >= EVIDENCE.storm) || (span >= EVIDENCE.heldMs && share >= EVIDENCE.share));
    if (!shown) return explained && 2 * seen.explained >= refused ? 'load' : undefined;
    window.refusals.delete(key);
    this.scopes.weighing--;
    return { served: (window.successes * 1000) / Math.max(RATE_RULE.stepMs, span) };
  };

  /** A success at `origin` (`sent`: counted going out): counted where bare refusals are being weighed. */
  readonly succeeded = (origin: string, now: number, sent?: Sending): void => {
    const window = sent?.window ?? this.windows.get(origin);
    if (window === undefined || window.refusals.size === 0) return;
    this.turn(window, now);
    window.successes++;
    if (sent?.window !== window) return;
    window.okAlongside[Math.min(sent.alongside, MOST_ALONGSIDE)]!++;
  };

  /** An attempt going out to `origin`: counted in flight there while its bare refusals are weighed (else `undefined`). */
  readonly sending = (origin: string): Sending | undefined => {
    const window = this.windows.get(origin);
    return window === undefined ? undefined : { window, alongside: window.inFlight++ };
  };

  /** The answer (or failure) of an attempt counted going out: no longer in flight; how it went out. */
  readonly landed = (attempt: { sending: Sending | undefined }): Sending | undefined => {
    const sent = attempt.sending;
    if (sent !== undefined) sent.window.inFlight--;
    attempt.sending = undefined;
    return sent;
  };

  clear(): void {
    this.windows.clear();
    this.scopes.weighing = 0;
  }

  /** Starts a new evidence window when the last one is over; returns how long the current one has run. */
  private turn(window: Window, now: number): number {
    if (now - window.start >= EVIDENCE.windowMs) {
      window.start = now;
      window.successes = 0;
      window.okAlongside.fill(0);
      this.scopes.weighing -= window.refusals.size;
      window.refusals.clear();
    }
    return now - window.start;
  }
}

/**
 * Whether the origin's load explains a refusal sent with `alongside` of the plugin's requests in
 * flight there: enough successes are counted to believe, and hardly any of them went out with as many.
 */
function loadExplains(window: Window, alongside: number): boolean {
  const least = Math.min(alongside, MOST_ALONGSIDE);
  let all = 0;
  let asMany = 0;
  window.okAlongside.forEach((count, sentWith) => {
    all += count;
    if (sentWith >= least) asMany += count;
  });
  return all >= EVIDENCE.believedOk && asMany < EVIDENCE.fewOk * all;
}
