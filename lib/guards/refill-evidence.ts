/**
 * What a scope's answers say of its quota: whether its limiter refills continuously (a token
 * bucket, a sliding window) or is a fixed window, by what they say over time (the evidence, pure; a
 * reset alone does not tell them apart), and a fixed window's count (`WindowQuota`, below). A spent
 * fixed window is held to its reset (its remaining count comes back whole there, not before); a limiter
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
  /** The remaining count, if the answer gave one, and the quota's size (`X-RateLimit-Limit`), if it did. */
  remaining: number | undefined;
  limit?: number | undefined;
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

/**
 * What a scope's answers said of its quota: whether its limiter refills continuously (the
 * evidence above), and while it looks like a fixed window (`X-RateLimit-*`, IETF `RateLimit`),
 * that window's quota as the server last told it: `remaining` requests until `resetAt`, counted as of
 * a request sent at `asOf`. Until the reset, a call goes only while the sends since `asOf` leave some
 * of it: the calls already in flight when the answer was written are counted against it, so a
 * truthful window is not overrun by the calls sent before its last answer came back. A new window is
 * unknown until its first answer. A limiter shown to refill has no window to count: it is paced.
 *
 * A window also has a rate, its size per its length (`ratePerSecond`), which is what a fleet must
 * pace at: each process counts only its own sends against the remaining its answers report, so four
 * processes at full speed overrun every window by what the others sent while an answer was on its
 * way. `X-RateLimit-*` states the size, not the length; the length is the step between two windows'
 * resets, where every answer of a window states the same reset (an epoch time, as GitHub's). A reset
 * that moves within a window (whole seconds from now, rounded) shows no length, and gives no rate.
 */
export class WindowQuota {
  /** The newest word on the window (kept past its reset, to step the length from). */
  private told: { remaining: number; resetAt: number; asOf: number } | undefined;
  /** Send times since the quota was counted (`asOf`), oldest first, until its reset. */
  private readonly sends: number[] = [];
  private evidence: RefillEvidence = NO_EVIDENCE;
  /** The window's size (the last stated), and its length once two windows' resets showed it; `NaN` once a reset moved within a window. */
  private limit: number | undefined;
  private lengthMs: number | undefined;

  /** The window's rate (its size per its length, per second), once its answers have shown both; else `undefined`. */
  get ratePerSecond(): number | undefined {
    const { limit, lengthMs } = this;
    if (limit === undefined || lengthMs === undefined || this.evidence.refills || !(lengthMs > 0)) return undefined;
    return (limit * 1000) / lengthMs;
  }

  /**
   * One answer's word on the quota: the evidence of which limiter this is, and the window's count
   * (when `counted`: a window's fields, not a quota that refills by its dialect) while none refills.
   */
  heard(word: QuotaWord, counted: boolean): void {
    this.evidence = heard(this.evidence, word);
    if (this.evidence.refills) this.sends.length = 0;
    else if (counted && word.remaining !== undefined && word.resetAt !== undefined) {
      if (word.limit !== undefined) this.limit = word.limit;
      this.tell(word.remaining, word.resetAt, word.sentAt);
    }
  }

  /** Whether a hold of `holdMs` an answer asks for only paces this scope (its limiter refills). */
  pacesInstead(holdMs: number): boolean {
    return pacedNotHeld(this.evidence, holdMs);
  }

  /** Until when the quota holds calls back (0: it does not): spent by the calls sent since it was told. */
  heldUntil(now: number): number {
    const told = this.counting(now);
    return told !== undefined && told.remaining <= this.sends.length ? told.resetAt : 0;
  }

  /** A call was sent at `now` (counted only while a quota is known). */
  sent(now: number): void {
    if (this.counting(now) !== undefined) this.sends.push(now);
  }

  /** The window being counted at `now`: the last told, before its reset, of a limiter not shown to refill. */
  private counting(now: number): WindowQuota['told'] {
    const told = this.told;
    if (told === undefined || this.evidence.refills) return undefined;
    if (now < told.resetAt) return told;
    this.sends.length = 0;
    return undefined;
  }

  /** The server's word, from an answer to a request sent at `asOf`; a word older than the last is ignored (answers out of order). */
  private tell(remaining: number, resetAt: number, asOf: number): void {
    const last = this.told;
    if (last !== undefined && asOf < last.asOf) return;
    this.told = { remaining, resetAt, asOf };
    this.measure(last, remaining, resetAt);
    const kept = this.sends.findIndex((at) => at > asOf);
    this.sends.splice(0, kept === -1 ? this.sends.length : kept);
  }

  /**
   * A newer word stating another reset than the last (by more than a clock's rounding): the next
   * window (its count came back up, its reset later) steps the length, the shortest seen (windows
   * that went unused step it twice); anything else is a reset moving within a window, which states no
   * length, now or later.
   */
  private measure(last: WindowQuota['told'], remaining: number, resetAt: number): void {
    if (last === undefined || Math.abs(resetAt - last.resetAt) <= 1) return;
    const next = resetAt > last.resetAt && remaining > last.remaining;
    this.lengthMs = next ? Math.min(this.lengthMs ?? Infinity, resetAt - last.resetAt) : NaN;
  }
}
