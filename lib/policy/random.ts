/**
 * A seeded source of randomness in [0, 1) (mulberry32), for the plugin's `random` option: the same
 * seed gives the same jitter, so a test can assert exact waits and a chaos run can be replayed.
 * Not for anything secret (idempotency keys never use it).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
