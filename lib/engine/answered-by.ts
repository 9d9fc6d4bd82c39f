import { parseOrigin } from '../policy/origin';

/**
 * The origin that answered an attempt sent to `sentTo`, when Node's http adapter followed a redirect
 * to another one: follow-redirects names the last URL on the response (`request.res.responseUrl`)
 * and on a transport error's request (`_currentUrl`). The call is then accounted there, to its
 * breaker and retry budget, not to the origin that only redirected it. The fetch and xhr adapters do
 * not say where they were redirected: a call through them stays with the origin it was sent to.
 * `undefined`: answered where it was sent.
 */
export function answeredBy(outcome: { response?: unknown; error?: unknown }, sentTo: string): string | undefined {
  const request = requestOf(outcome.response ?? outcome.error);
  const url = request?.res?.responseUrl ?? request?._currentUrl;
  if (typeof url !== 'string' || startsWithOrigin(url, sentTo)) return undefined;
  // `sentTo` names a default port (`https://host:443`) that a URL leaves out.
  const port = sentTo.slice(sentTo.lastIndexOf(':'));
  const bare = sentTo.slice(0, -port.length);
  if ((port === ':443' || port === ':80') && startsWithOrigin(url, bare)) return undefined;
  const origin = parseOrigin(url);
  return origin === sentTo ? undefined : origin;
}

/** `url` is at `origin` (a string test, before any parsing: this runs on every answer). */
function startsWithOrigin(url: string, origin: string): boolean {
  if (!url.startsWith(origin)) return false;
  const next = url.charCodeAt(origin.length);
  // End, '/', '?' or '#': not a longer host or port that begins the same.
  return Number.isNaN(next) || next === 47 || next === 63 || next === 35;
}

/** What follow-redirects leaves on the request of a response or an error. */
interface LastRequest {
  res?: { responseUrl?: unknown };
  _currentUrl?: unknown;
}

function requestOf(value: unknown): LastRequest | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const holder = value as { request?: unknown; response?: { request?: unknown } };
  const request = holder.response?.request ?? holder.request;
  return request !== null && typeof request === 'object' ? (request as LastRequest) : undefined;
}
