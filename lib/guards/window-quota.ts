/**
 * A fixed window's quota as the server last told it (`X-RateLimit-*`, IETF `RateLimit`): `remaining`
 * requests until `resetAt`, counted as of a request sent at `asOf`. Until the reset, a call goes only
 * while the sends since `asOf` leave some of it: the calls already in flight when the answer was
 * written are counted against it, so a truthful window is not overrun by the calls sent before its
 * last answer came back. A new window is unknown until its first answer.
 */
export class WindowQuota {
  private told: { remaining: number; resetAt: number; asOf: number } | undefined;
  /** Send times since the quota was counted (`asOf`), oldest first. */
  private readonly sends: number[] = [];

  /** The server's word, from an answer to a request sent at `asOf`; an older word for the same window is ignored. */
  tell(remaining: number, resetAt: number, asOf: number): void {
    const told = this.told;
    if (told !== undefined && told.resetAt === resetAt && asOf < told.asOf) return;
    this.told = { remaining, resetAt, asOf };
    const kept = this.sends.findIndex((at) => at > asOf);
    this.sends.splice(0, kept === -1 ? this.sends.length : kept);
  }

  /** Until when the quota holds calls back (0: it does not): spent by the calls sent since it was told. */
  heldUntil(now: number): number {
    const told = this.told;
    if (told === undefined) return 0;
    if (now < told.resetAt) return told.remaining <= this.sends.length ? told.resetAt : 0;
    this.told = undefined;
    this.sends.length = 0;
    return 0;
  }

  /** A call was sent at `now` (counted only while a quota is known). */
  sent(now: number): void {
    if (this.told !== undefined) this.sends.push(now);
  }
}
