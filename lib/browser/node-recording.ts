/**
 * The browser build's `engine/node-recording.ts`: a browser has no Node streams (its stream bodies
 * are web ReadableStreams, recorded by `engine/recording.ts`), so anything else that looks like a
 * stream is sent once, as it is, and not replayed: a retry would stop with `body-not-replayable`.
 */
import type { Recording } from '../engine/recorded-bytes';

export function nodeRecorder(data: unknown): Recording {
  return {
    body: data,
    complete: () => Promise.resolve(false),
    replay: () => data,
    release: () => undefined,
  };
}
