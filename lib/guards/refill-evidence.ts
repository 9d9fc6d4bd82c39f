/**
 * Whether a scope's limiter refills continuously (a token bucket, a sliding window) or is a fixed
 * window, by what its answers say over time; a reset alone does not tell them apart. A spent fixed
 * window is held to its reset (its remaining count comes back whole there, not before); a limiter
 * that refills is paced at its rate, and a refusal's short reset is a pace signal, not a hold of the
 * whole scope (nginx's `limit_req`, Envoy's and most gateways' buckets answer `Retry-After: 1`, or a
 * spent quota resetting at the next second, while a token comes back every 1/rate seconds).
 *
 * The evidence, from the answers of a paced scope (pure; the scope's limiter keeps the value):
 * - **it speaks only on its refusals**: a success carries no remaining count while refusals do;
 * - **its remaining count grew before the reset**: an answer to a request sent later reports more
 *   remaining (by two at least: requests sent together may be answered out of order) than an earlier
 *   answer of the same period did, more than a reset's rounding (a second) before that answer's reset.
 * Until either is heard a scope keeps the fixed window's hold. Once heard it stands while the
 * limiter is on (it relaxes after a quiet spell and starts again knowing nothing).
 */

/** What one answer of the scope says of its quota. */
export interface QuotaWord {
  /** A success (status below 400), not a refusal. */
  ok: boolean;
  /** The remaining count, if the answer gave one. */
  remaining: number | undefined;
  /** When it said the quota resets (the clock's ms), if it did. */
  resetAt: number | undefined;
  /** When the answered request was sent, and when its answer was read (the clock's ms). */
  sentAt: number;
  at: number;
}

export interface RefillEvidence {
  /** The limiter refills continuously. */
  refills: boolean;
  /** The lowest remaining count reported in the current period, and that answer's send time and reset. */
  low: { remaining: number; sentAt: number; resetAt: number } | undefined;
}

/** A reset given in whole seconds (epoch or delta) is up to this much off; a rise this close to one proves nothing. */
const RESET_ROUNDING_MS = 1000;
/** A rise of the remaining count smaller than this may be requests answered out of order. */
const LEAST_RISE = 2;
/** The longest hold a refilling limiter's answer paces instead: a bucket's `Retry-After: 1` or next-second reset. */
const PACE_NOT_HOLD_MS = 1000;

export const NO_EVIDENCE: RefillEvidence = { refills: false, low: undefined };

/** The evidence after one more answer of the scope. */
export function heard(evidence: RefillEvidence, word: QuotaWord): RefillEvidence {
  if (evidence.refills) return evidence;
  if (word.remaining === undefined) return word.ok ? { refills: true, low: undefined } : evidence;
  if (word.resetAt === undefined) return evidence;
  const low = evidence.low;
  const samePeriod = low !== undefined && word.at < low.resetAt;
  if (samePeriod && word.sentAt > low.sentAt && word.at < low.resetAt - RESET_ROUNDING_MS) {
    if (word.remaining >= low.remaining + LEAST_RISE) return { refills: true, low: undefined };
  }
  if (samePeriod && word.remaining >= low.remaining) return evidence;
  return { refills: false, low: { remaining: word.remaining, sentAt: word.sentAt, resetAt: word.resetAt } };
}

/** Whether a hold of `holdMs` the scope's answer asks for is, for this limiter, a pace signal instead. */
export function pacedNotHeld(evidence: RefillEvidence, holdMs: number): boolean {
  return evidence.refills && holdMs <= PACE_NOT_HOLD_MS;
}
