import nock from 'nock';
import { closePlugins, realTick } from './helpers';

// nock helpers live apart from ./helpers: importing nock patches Node's http module, which a test
// file using real sockets must not have done to it.

export interface Seen {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * Turns nock on for one test file and fully off after it. nock patches Node's http module, which
 * jest does not isolate between files run in one process; without `restore()` every file's copy
 * stays patched on top of the last, and replies start to go missing.
 */
export function useNock(): void {
  beforeAll(() => {
    if (!nock.isActive()) nock.activate();
    nock.disableNetConnect();
  });
  afterAll(() => {
    nock.cleanAll();
    nock.enableNetConnect();
    nock.restore();
  });
}

/** Closes every plugin made by `client()`; call from afterEach. */
export async function closeAll(): Promise<void> {
  await closePlugins();
  // nock's mock sockets emit their replyWithError a tick after the request settles; let that
  // happen while the request still listens, or the error surfaces as unhandled in a later file.
  for (let i = 0; i < 3; i++) await realTick();
  nock.cleanAll();
}

/** Replies with `statuses` in turn (the last one repeats), recording what the server received. */
export function script(
  origin: string,
  method: 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head',
  path: string,
  statuses: Array<number | [number, Record<string, string>]>,
): Seen[] {
  const seen: Seen[] = [];
  const scope = nock(origin);
  scope
    .intercept(path, method.toUpperCase())
    .times(Infinity)
    .reply(function (_uri, body) {
      seen.push({
        method: this.req.method,
        path: this.req.path,
        headers: { ...this.req.headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const step = statuses[Math.min(seen.length - 1, statuses.length - 1)]!;
      const [status, headers] = Array.isArray(step) ? step : [step, {}];
      return [status, { n: seen.length }, headers];
    });
  return seen;
}
