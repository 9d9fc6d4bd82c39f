import { NO_EVIDENCE, heard, pacedNotHeld } from './refill-evidence';
import type { QuotaWord, RefillEvidence } from './refill-evidence';

/**
 * What a scope's answers said of its quota: whether its limiter refills continuously
 * (`refill-evidence.ts`), and while it looks like a fixed window (`X-RateLimit-*`, IETF `RateLimit`),
 * that window's quota as the server last told it: `remaining` requests until `resetAt`, counted as of
 * a request sent at `asOf`. Until the reset, a call goes only while the sends since `asOf` leave some
 * of it: the calls already in flight when the answer was written are counted against it, so a
 * truthful window is not overrun by the calls sent before its last answer came back. A new window is
 * unknown until its first answer. A limiter shown to refill has no window to count: it is paced.
 */
export class WindowQuota {
  private told: { remaining: number; resetAt: number; asOf: number } | undefined;
  /** Send times since the quota was counted (`asOf`), oldest first. */
  private readonly sends: number[] = [];
  private evidence: RefillEvidence = NO_EVIDENCE;

  /**
   * One answer's word on the quota: the evidence of which limiter this is, and the window's count
   * (when `counted`: a window's fields, not a quota that refills by its dialect) while none refills.
   */
  heard(word: QuotaWord, counted: boolean): void {
    this.evidence = heard(this.evidence, word);
    if (this.evidence.refills) this.forget();
    else if (counted && word.remaining !== undefined && word.resetAt !== undefined)
      this.tell(word.remaining, word.resetAt, word.sentAt);
  }

  /** Whether a hold of `holdMs` an answer asks for only paces this scope (its limiter refills). */
  pacesInstead(holdMs: number): boolean {
    return pacedNotHeld(this.evidence, holdMs);
  }

  /** Until when the quota holds calls back (0: it does not): spent by the calls sent since it was told. */
  heldUntil(now: number): number {
    const told = this.told;
    if (told === undefined) return 0;
    if (now < told.resetAt) return told.remaining <= this.sends.length ? told.resetAt : 0;
    this.forget();
    return 0;
  }

  /** A call was sent at `now` (counted only while a quota is known). */
  sent(now: number): void {
    if (this.told !== undefined) this.sends.push(now);
  }

  /** The server's word, from an answer to a request sent at `asOf`; an older word for the same window is ignored. */
  private tell(remaining: number, resetAt: number, asOf: number): void {
    const told = this.told;
    if (told !== undefined && told.resetAt === resetAt && asOf < told.asOf) return;
    this.told = { remaining, resetAt, asOf };
    const kept = this.sends.findIndex((at) => at > asOf);
    this.sends.splice(0, kept === -1 ? this.sends.length : kept);
  }

  private forget(): void {
    this.told = undefined;
    this.sends.length = 0;
  }
}
