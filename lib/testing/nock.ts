import type { RecordedRequest } from './resource';
import { ScriptedRoute, parseRouteKey } from './route';
import type { Route } from './route';
import { bodyText, replyHeaders } from './steps';

/**
 * The part of a nock interceptor these helpers use. Typed here so that this module does not
 * import nock: pass your own `nock(origin)` scope.
 */
export interface NockInterceptorLike {
  reply(
    fn: (
      this: { req: { headers: Record<string, string | string[] | undefined> } },
      uri: string,
      body: unknown,
      callback: (error: Error | null, result: [number, string, Record<string, string>]) => void,
    ) => void,
  ): unknown;
}

/** The part of a nock scope these helpers use (`nock('http://api.test')` is one). */
export interface NockScopeLike {
  intercept(uri: string, method: string): NockInterceptorLike;
}

/** What `nockRoute()` returns. */
export interface NockRoute {
  /** The requests nock answered for this route, in order. */
  readonly requests: readonly RecordedRequest[];
}

/** The error a dropped connection surfaces as in Node: what `reset` steps reply with. */
export function connectionReset(): Error {
  return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
}

/**
 * Registers a route's script on a nock scope: one interceptor per step, in order, with the same
 * meaning as in `startFaultServer()` (statuses, headers, bodies, delays, resets, idempotent
 * resources). Unlike the fault server, the last step does not repeat: nock consumes each
 * interceptor once, so a request past the script fails with nock's "No match", and
 * `scope.done()` asserts that every step was used.
 *
 * @example
 * const scope = nock('http://api.test');
 * nockRoute(scope, 'GET /v1/items', ['503', { status: 429, headers: { 'Retry-After': '1' } }, '200']);
 * await http.get('http://api.test/v1/items');
 * scope.done();
 */
export function nockRoute(scope: NockScopeLike, route: string, script: Route): NockRoute {
  const { method, path } = parseRouteKey(route);
  const scripted = new ScriptedRoute(script);
  const requests: RecordedRequest[] = [];
  for (let i = 0; i < scripted.length; i++) {
    // Delays are read from the step the request gets, which is only known when it arrives; a
    // response delay is applied by replying later, a reset by failing later.
    scope.intercept(path, method).reply(function (uri, body, callback) {
      const text = bodyText(body);
      const headers = { ...this.req.headers };
      const recorded: RecordedRequest = { method, path: uri, headers, body: text, time: Date.now(), route, step: -1 };
      requests.push(recorded);
      const outcome = scripted.take(recorded);
      const finish = (): void => {
        if (outcome.kind === 'reset') return callback(connectionReset(), [0, '', {}]);
        callback(null, [outcome.status, bodyText(outcome.body), replyHeaders(outcome.body, outcome.headers)]);
      };
      if (outcome.delayMs > 0) setTimeout(finish, outcome.delayMs);
      else finish();
    });
  }
  return { requests };
}
