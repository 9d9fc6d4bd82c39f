/** Settling a call that waits on jest's fake clock while real sockets answer it. */
import { realTick } from './helpers';

/**
 * Settles `call`, running real I/O and moving the fake clock on `stepMs` at a time (a wait of the
 * plugin's ends only when the clock reaches it); bounded by `maxMs` of fake time.
 */
export async function settle<T>(call: Promise<T>, stepMs = 5, maxMs = 120_000): Promise<T> {
  let done = false;
  call.then(
    () => (done = true),
    () => (done = true),
  );
  for (let waited = 0; !done && waited <= maxMs; waited += stepMs) {
    for (let i = 0; i < 3; i++) await realTick();
    if (!done) await jest.advanceTimersByTimeAsync(stepMs);
  }
  return call;
}
