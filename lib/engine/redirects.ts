import type { Guard } from '../guards/breaker';
import { absoluteOrigin } from '../policy/origin';
import type { CallRun } from './call-run';
import { gateFor, routeTo } from './route';
import type { Route } from './route';

/**
 * A redirect followed to another origin: the call is accounted where it was answered. Node's http
 * adapter (follow-redirects) names the last URL on the response (`request.res.responseUrl`) and on a
 * transport error's request (`_currentUrl`); the call's outcome then goes to that origin's breaker
 * and its retries to that origin's budget, not to the origin that only redirected it. The fetch and
 * xhr adapters do not say where they were redirected: a call through them stays with the origin it
 * was sent to, and the browser build carries `browser/redirects.ts` instead.
 */

/** The origin that answered an attempt sent to `sentTo`, when a redirect ended at another one; else `undefined`. */
export function answeredBy(outcome: { response?: unknown; error?: unknown }, sentTo: string): string | undefined {
  const holder = (outcome.response ?? outcome.error) as
    { request?: LastRequest | null; response?: { request?: LastRequest | null } } | null | undefined;
  const request = holder?.response?.request ?? holder?.request;
  const url = request?.res?.responseUrl ?? request?._currentUrl;
  if (typeof url !== 'string') return undefined;
  // Where `sentTo` ends in `url`, by a string test before any parsing (this runs on every answer),
  // with the default port a URL leaves out (`https://host:443`) allowed for; then the URL's end, '/',
  // '?' or '#', not a longer host or port that begins the same.
  const port = sentTo.slice(sentTo.lastIndexOf(':'));
  const bare = port === ':443' || port === ':80' ? sentTo.slice(0, -port.length) : sentTo;
  const end = url.startsWith(sentTo) ? sentTo.length : url.startsWith(bare) ? bare.length : -1;
  const next = end === -1 ? -1 : url.charCodeAt(end);
  if (Number.isNaN(next) || next === 47 || next === 63 || next === 35) return undefined;
  const origin = absoluteOrigin(url, false);
  return origin === sentTo ? undefined : origin;
}

/** What follow-redirects leaves on a request. */
interface LastRequest {
  res?: { responseUrl?: unknown };
  _currentUrl?: unknown;
}

/** The breaker of `origin`, where a first attempt's success was answered; `undefined` when `breaker.key()` throws. */
export function guardAt(run: CallRun, origin: string): Guard | undefined {
  const { shared, config } = run;
  try {
    return shared.breakers?.for(shared.breakerKey === undefined ? origin : shared.breakerKey(config, origin));
  } catch {
    return undefined;
  }
}

/**
 * An attempt of the loop was answered by `origin`, another than it was sent to: the call is
 * accounted there from now on — its outcome to that origin's breaker, its retries to that origin's
 * budget. The origin that redirected counts nothing: it answered. Retries are still sent where the
 * config says (and redirected again).
 */
export function accountAt(run: CallRun, origin: string): void {
  if (origin === (run.accountedAt ?? run.route.origin)) return;
  let route: Route;
  try {
    route = routeTo(origin, run.config, run.shared, run.state, run.options, run.endpoint);
  } catch {
    // breaker.key() threw for the origin that answered: the call stays accounted where it was sent.
    return;
  }
  run.accountedAt = origin;
  run.gate.left(undefined);
  run.gate = gateFor(run, route, true);
  void run.token?.moveTo(route.budget);
}
