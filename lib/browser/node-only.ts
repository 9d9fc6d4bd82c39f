/**
 * The browser build's `engine/node-recording.ts`, `engine/node-form.ts` and `engine/redirects.ts`:
 * what only Node's http adapter needs. A browser has no Node streams (its stream bodies are web
 * ReadableStreams, recorded by `engine/recording.ts`), no http adapter to send a form through, and
 * its fetch and xhr do not say where a redirect ended.
 */
import type { Recording } from '../engine/recorded-bytes';

/** Anything else that looks like a stream is sent once, as it is: a retry would stop with `body-not-replayable`. */
export function nodeRecorder(data: unknown): Recording {
  return { body: data, complete: () => Promise.resolve(false), replay: () => data, release: () => undefined };
}

/** A form is encoded once by the platform (`body.ts`), never pinned for the http adapter. */
export function pinnedOverHttp(): boolean {
  return false;
}

/** A call is always accounted at the origin it was sent to. */
export function answeredBy(): string | undefined {
  return undefined;
}

/** Not reached (`answeredBy` names no origin). */
export function guardAt(): undefined {
  return undefined;
}

/** Not reached (`answeredBy` names no origin). */
export function accountAt(): void {}
