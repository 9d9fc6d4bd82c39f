/**
 * The browser build's `engine/redirects.ts`: a browser's fetch and xhr do not say where a redirect
 * ended, so a call is always accounted at the origin it was sent to.
 */

/** Never another origin than the one the attempt was sent to. */
export function answeredBy(): string | undefined {
  return undefined;
}

/** Not reached (`answeredBy` names no origin). */
export function guardAt(): undefined {
  return undefined;
}

/** Not reached (`answeredBy` names no origin). */
export function accountAt(): void {}
