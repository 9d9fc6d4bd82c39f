/**
 * A script's process lives exactly as long as its calls: while a call waits (a backoff, an origin a
 * server paused, a turn in the rate limiter's queue, a hedge's delay) the process stays alive, as it
 * would for plain axios's pending socket; once every call has settled, nothing the plugin holds keeps
 * it, without `close()`. Each case is a real child process, as CommonJS (`.then`, no await) and as an
 * ES module (top-level await), against a real server on 127.0.0.1.
 *
 * Before 0.4.1 a call waiting on the limiter (an origin paused by a 429) let the process exit with
 * code 0 and the call unsettled (13 from an ES module), printing nothing.
 *
 * The children run the sources through tsx. `LIFETIME_RUNTIME=<path to bun or deno>` runs them in
 * that runtime on the build instead (`npm run build` first): `.ci/run` does so for Bun and Deno.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { reportFigures } from '../support/figures';
import { startServer } from '../support/test-server';
import type { TestServer } from '../support/test-server';

type ScenarioName = 'backoff' | 'paused' | 'queued' | 'hedged' | 'aborted-in-pause' | 'closed-in-pause';
/** How one call ended, as the child prints it (`support/lifetime/scenarios.cjs`). */
interface Ended {
  outcome: string;
  status?: number;
  attempts?: number;
  delaysMs?: number[];
}

const ROOT = path.resolve(__dirname, '../..');
const ENTRIES = {
  cjs: path.join(__dirname, '..', 'support', 'lifetime', 'cjs-entry.cjs'),
  esm: path.join(__dirname, '..', 'support', 'lifetime', 'esm-entry.mjs'),
};
/** A pause a call is cut out of (abort, close): one the process outlived would show as a kill. */
const LONG_PAUSE_MS = 20_000;
/** A child still running after this is killed (a wait that held it far past its calls). */
const KILL_AFTER_MS = 15_000;
/**
 * Settled to exited, measured inside the child. The check that cannot depend on the machine's speed
 * is `timers: 0` (nothing referenced is left); this bound only catches a hold of seconds on a host
 * busy enough to delay the exit itself.
 */
const LINGER_MS = 1000;

let server: TestServer;
const hits = new Map<string, number>();
/** Requests per whole URL (a call of the `queued` scenario has its own path). */
const perUrl = new Map<string, number>();

/**
 * The server each scenario waits on, by the first segment of the path (the second is the child's
 * format, so the two children count apart).
 */
function answer(url: string, n: number): { status: number; headers?: Record<string, string>; afterMs?: number } {
  const scenario = url.split('/')[1] as ScenarioName;
  switch (scenario) {
    case 'backoff':
      return { status: n === 1 ? 503 : 200 };
    case 'paused':
      // The server pauses the origin for 300 ms (read before Retry-After, which counts in seconds).
      return n === 1 ? { status: 429, headers: { 'retry-after-ms': '300' } } : { status: 200 };
    case 'queued':
      // Three calls, each refused once under a stated policy of 4 a second: their retries queue at its
      // pace. Counted per call (its own path), not by arrival: on a loaded host a call's first request can
      // reach the server after another call's retry.
      return (perUrl.get(url) ?? 0) === 1
        ? { status: 429, headers: { 'ratelimit-policy': '"p";q=4;w=1' } }
        : { status: 200 };
    case 'hedged':
      return { status: 200, afterMs: 300 };
    case 'aborted-in-pause':
    case 'closed-in-pause':
      return { status: 429, headers: { 'retry-after-ms': String(LONG_PAUSE_MS) } };
  }
}

beforeAll(async () => {
  server = await startServer((req, res) => {
    const key = req.url.split('/').slice(0, 3).join('/');
    const n = (hits.get(key) ?? 0) + 1;
    hits.set(key, n);
    perUrl.set(req.url, (perUrl.get(req.url) ?? 0) + 1);
    const { status, headers, afterMs } = answer(req.url, n);
    setTimeout(() => res.writeHead(status, headers).end(), afterMs ?? 0);
  });
});
afterAll(() => server.close());

interface ChildResult {
  exit: number | null;
  calls: Ended[] | undefined;
  /** Referenced timers left once the calls settled (Node and Deno list them; Bun's list is always empty). */
  timers: number | undefined;
  lingerMs: number | null | undefined;
  output: string;
}

/** Node on the sources, or the runtime `LIFETIME_RUNTIME` names on the build. */
const RUNTIME = process.env.LIFETIME_RUNTIME;

function runChild(format: keyof typeof ENTRIES, scenario: ScenarioName): Promise<ChildResult> {
  const args = [ENTRIES[format], scenario, server.url];
  const [command, argv] =
    RUNTIME === undefined
      ? [process.execPath, ['--import', 'tsx', ...args]]
      : [RUNTIME, path.basename(RUNTIME).startsWith('deno') ? ['run', '-A', ...args] : args];
  const env = RUNTIME === undefined ? process.env : { ...process.env, LIFETIME_LIB: 'dist' };
  const child = spawn(command, argv, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill(), KILL_AFTER_MS);
    child.on('exit', (code) => {
      clearTimeout(killer);
      const lines = output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const settled = lines.find((line) => 'calls' in line);
      const exited = lines.find((line) => 'exit' in line);
      resolve({
        exit: code,
        calls: settled?.calls as Ended[] | undefined,
        timers: settled?.timers as number | undefined,
        lingerMs: exited?.lingerMs as number | null | undefined,
        output,
      });
    });
  });
}

const resolved = (attempts: number): Ended => ({
  outcome: 'resolved',
  status: 200,
  attempts,
  delaysMs: expect.any(Array) as unknown as number[],
});

/** Each kind of wait: how its calls end, and the requests the server saw from one child. */
const CASES: { scenario: ScenarioName; wait: string; calls: Ended[]; requests: number }[] = [
  { scenario: 'backoff', wait: 'a backoff after a 503', calls: [resolved(2)], requests: 2 },
  { scenario: 'paused', wait: 'an origin a 429 paused', calls: [resolved(2)], requests: 2 },
  {
    scenario: 'queued',
    wait: 'turns in the rate limiter’s queue',
    calls: [1, 2, 3].map(() => resolved(2)),
    requests: 6,
  },
  // The hedged copy is an attempt of its own.
  { scenario: 'hedged', wait: 'a hedge’s delay', calls: [resolved(2)], requests: 2 },
];

describe.each(['cjs', 'esm'] as const)('a %s script', (format) => {
  test.each(CASES)(
    'stays alive through $wait until its call settles, then exits by itself',
    async (c) => {
      const result = await runChild(format, c.scenario);
      reportFigures(`lifetime ${format} ${c.scenario}`, { lingerMs: result.lingerMs, calls: result.calls });
      expect({ exit: result.exit, calls: result.calls, timers: result.timers }).toEqual({
        exit: 0,
        calls: c.calls,
        timers: 0,
      });
      expect(hits.get(`/${c.scenario}/${format}`)).toBe(c.requests);
      expect(result.lingerMs).toBeLessThan(LINGER_MS);
    },
    30_000,
  );

  test.each([
    { scenario: 'aborted-in-pause' as const, by: 'an abort', outcome: 'cancelled' },
    { scenario: 'closed-in-pause' as const, by: 'plugin.close()', outcome: 'aborted' },
  ])(
    'a call cut out of a 20 s pause by $by settles, and the process exits at once',
    async (c) => {
      const result = await runChild(format, c.scenario);
      reportFigures(`lifetime ${format} ${c.scenario}`, { lingerMs: result.lingerMs, calls: result.calls });
      expect({ exit: result.exit, outcomes: result.calls?.map((call) => call.outcome), timers: result.timers }).toEqual(
        {
          exit: 0,
          outcomes: [c.outcome],
          timers: 0,
        },
      );
      // Sent once: the pause held its retry, and nothing was sent after the call ended.
      expect(hits.get(`/${c.scenario}/${format}`)).toBe(1);
      expect(result.lingerMs).toBeLessThan(LINGER_MS);
    },
    30_000,
  );
});
