/**
 * Fake-timer pairs (issue 48 item 7), shared by the jest run (`reliability/fake-timers-pairs`) and
 * the vitest run (`fake-timer-pairs/pairs.vitest.ts`). Each test installs fresh fake timers, makes a
 * new plugin and retries a 503 whose `Retry-After` date is 2 s on; the mock that answers is
 * axios-mock-adapter, nock or msw. The sequence of tests puts each mock after each other one, so
 * every ordered pair runs: whatever a closed plugin left behind, the next test's clock must not
 * depend on it. The retry must go out exactly when the test's own fake clock reaches the date.
 */
import axios from 'axios';
import type { AxiosInstance, AxiosResponse } from 'axios';
import MockAdapter from 'axios-mock-adapter';
import nock from 'nock';
import { http as mswHttp, HttpResponse } from 'msw';
import type { SetupServer } from 'msw/node';
import { retryPlugin } from '../../../lib';

export type MockKind = 'axios-mock-adapter' | 'nock' | 'msw';

/** Each mock after each other one: mock→nock, nock→msw, msw→mock, mock→msw, msw→nock, nock→mock. */
export const SEQUENCE: MockKind[] = [
  'axios-mock-adapter',
  'nock',
  'msw',
  'axios-mock-adapter',
  'msw',
  'nock',
  'axios-mock-adapter',
];

/** The title of test `index` of the sequence: which mock, and which ran before it. */
export function titleOf(index: number): string {
  const after = index === 0 ? 'first' : `after ${SEQUENCE[index - 1]}`;
  return `${index + 1}. ${SEQUENCE[index]} (${after}): the retry goes out when this test's clock reaches Retry-After`;
}

/** The fake-timer calls of a test runner that a scenario makes: `jest` and vitest's `vi` both have them. */
export interface FakeTimerRunner {
  useFakeTimers(config: { now: number }): unknown;
  advanceTimersByTimeAsync(ms: number): Promise<unknown>;
  getTimerCount(): number;
  useRealTimers(): unknown;
}

/** The wait the server asks for, as an HTTP date this far past the test's fake now. */
export const SERVER_WAIT_MS = 2_000;
/** Turns of the fake clock (each also one turn of the real event loop) an answer may take to arrive. */
const IO_TURNS = 1_000;

/** Each test's fake clock starts on a day of its own: a clock left over from an earlier test is a day or more off. */
export const startOf = (index: number): number => Date.UTC(2026, 0, 1 + index, 12);

interface Arranged {
  /** Requests the mock answered, in order. */
  readonly received: number;
  done(): void;
}

/** The first request gets a 503 with `Retry-After: <start + 2 s>`, the second a 200 `ok`. */
function answerFor(count: number, start: number): { status: number; headers: Record<string, string>; body: string } {
  if (count === 1) {
    return { status: 503, headers: { 'retry-after': new Date(start + SERVER_WAIT_MS).toUTCString() }, body: '' };
  }
  return { status: 200, headers: {}, body: 'ok' };
}

function arrange(kind: MockKind, http: AxiosInstance, url: string, start: number, msw: SetupServer): Arranged {
  const arranged = { received: 0, done: (): void => undefined };
  const answer = () => answerFor(++arranged.received, start);
  if (kind === 'axios-mock-adapter') {
    const mock = new MockAdapter(http);
    mock.onGet(url).reply(() => {
      const { status, headers, body } = answer();
      return [status, body, headers];
    });
    arranged.done = () => mock.restore();
  } else if (kind === 'nock') {
    const { origin, pathname } = new URL(url);
    nock(origin)
      .get(pathname)
      .times(2)
      .reply(() => {
        const { status, headers, body } = answer();
        return [status, body, headers];
      });
    arranged.done = () => nock.cleanAll();
  } else {
    // nock and msw each patch node:http, nock first; so msw listens only for its own tests, with nock off.
    nock.restore();
    msw.listen({ onUnhandledRequest: 'error' });
    msw.use(
      mswHttp.get(url, () => {
        const { status, headers, body } = answer();
        return new HttpResponse(body, { status, headers });
      }),
    );
    arranged.done = () => {
      msw.resetHandlers();
      msw.close();
      nock.activate();
    };
  }
  return arranged;
}

/** What a user sees of one test: requests the mock received before and at the date, the answer, the waits, timers left. */
export interface Outcome {
  receivedBeforeTheDate: number;
  receivedAtTheDate: number;
  status: number | undefined;
  delaysMs: number[] | undefined;
  timersLeftAfterClose: number;
}

/** The outcome every test of the sequence must have, whatever ran before it. */
export const EXPECTED: Outcome = {
  receivedBeforeTheDate: 1,
  receivedAtTheDate: 2,
  status: 200,
  delaysMs: [SERVER_WAIT_MS],
  timersLeftAfterClose: 0,
};

/** Moves the fake clock by 0 ms (a turn of the real event loop and what is due) until `done`, at most `IO_TURNS` times. */
async function turns(timers: FakeTimerRunner, done: () => boolean): Promise<void> {
  for (let i = 0; i < IO_TURNS && !done(); i++) await timers.advanceTimersByTimeAsync(0);
}

/**
 * Test `index` of the sequence: fresh fake timers starting at `startOf(index)`, a new plugin, a GET
 * answered 503 with `Retry-After` 2 s on, then 200. The call is driven with the runner's async
 * advance: real I/O until the retry is planned, then 1,999 ms (nothing may go out), then 1 ms (the
 * retry goes out and is answered). The plugin is closed under the same fake timers.
 */
export async function retryAfterDate(
  kind: MockKind,
  index: number,
  timers: FakeTimerRunner,
  msw: SetupServer,
): Promise<Outcome> {
  const start = startOf(index);
  timers.useFakeTimers({ now: start });
  const plugin = retryPlugin({ random: () => 0.5 });
  const http = axios.create();
  plugin.install(http);
  const url = `http://${kind}.pairs.test/${index}`;
  const mock = arrange(kind, http, url, start, msw);
  let planned = false;
  plugin.on('retry', () => (planned = true));
  let response: AxiosResponse | undefined;
  let settled = false;
  const call = http.get(url).then(
    (answer) => void (response = answer),
    () => undefined,
  );
  void call.finally(() => (settled = true));
  try {
    await turns(timers, () => planned);
    await timers.advanceTimersByTimeAsync(SERVER_WAIT_MS - 1);
    const receivedBeforeTheDate = mock.received;
    await timers.advanceTimersByTimeAsync(1);
    await turns(timers, () => settled);
    const receivedAtTheDate = mock.received;
    await plugin.close();
    // close() ends a wait that never fired, so the call settles either way.
    await call;
    return {
      receivedBeforeTheDate,
      receivedAtTheDate,
      status: response?.status,
      delaysMs: response?.config.retryState?.delaysMs,
      timersLeftAfterClose: timers.getTimerCount(),
    };
  } finally {
    await plugin.close();
    mock.done();
    timers.useRealTimers();
  }
}
