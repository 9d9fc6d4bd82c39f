/**
 * The send times one process holds from the fleet's schedule (local ms, oldest first), the rate
 * they were booked at, and how fast this process spends them.
 *
 * The spending rate is what lets a process with few callers stay on a slow store: a closed-loop
 * caller asks for its next turn only after its last call came back, so asking for the calls
 * waiting now would cost each call a round trip to the store. A process asks instead for what it
 * will spend while the next answer travels (`aheadFor`).
 */
export class HeldSlots {
  private times: number[] = [];
  /** The fleet's rate when the times held were booked (per second). */
  private bookedAt = Infinity;
  /** When the last second's send times were spent. */
  private spent: number[] = [];

  get length(): number {
    return this.times.length;
  }

  /** The next time held that is not before `from` (older ones are dropped), if any. */
  next(from: number): number | undefined {
    while (this.times.length > 0 && this.times[0]! < from) this.times.shift();
    return this.times[0];
  }

  /** The `n`-th time held (0: the next), if held. */
  at(n: number): number | undefined {
    return this.times[n];
  }

  /** Spends the next time held, at `now`. */
  use(now: number): void {
    this.times.shift();
    this.spent.push(now);
    while (this.spent.length > 0 && this.spent[0]! <= now - 1000) this.spent.shift();
  }

  /** Times granted at the fleet's `ratePerSecond`. */
  add(times: number[], ratePerSecond: number): void {
    this.slower(ratePerSecond);
    this.times.push(...times);
  }

  /**
   * The fleet's rate is now `ratePerSecond`: if that is lower than the times held were booked at
   * (a cut, heard a round trip late), only that share of them is kept, evenly: booked ahead at the
   * old rate, they would reach the server at it.
   */
  slower(ratePerSecond: number): void {
    const keep = ratePerSecond / this.bookedAt;
    this.bookedAt = ratePerSecond;
    this.thin(keep);
  }

  /** Keeps only `keep` (a share) of the times held, evenly. */
  thin(keep: number): void {
    if (!(keep < 1)) return;
    this.times = this.times.filter((_, i) => Math.floor((i + 1) * keep) > Math.floor(i * keep));
  }

  /**
   * How many send times to hold for the next `ms` (a round trip): twice what this process spent in
   * the last `ms` (a window of at least 100, at most 1000). Twice, so that a process whose callers
   * come back faster each round gets there in a few rounds, as TCP's window doubles per round trip;
   * the store's horizon caps what it grants, and a process that spends less asks for less.
   */
  aheadFor(ms: number, now: number): number {
    const window = Math.min(1000, Math.max(100, ms));
    const recent = this.spent.filter((at) => at > now - window).length;
    return Math.ceil((2 * recent * ms) / window);
  }

  clear(): void {
    this.times = [];
    this.bookedAt = Infinity;
  }
}
