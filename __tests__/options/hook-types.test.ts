/**
 * Hooks accept the functions users write: an arrow that returns what its body returns (a logger's
 * `warn` returns the logger, as winston's does; `Array.prototype.push` returns a length). A hook
 * typed `=> void | Promise<void>` refuses them, since TypeScript lets a value-returning function
 * stand for a `void` callback only when the return type is `void` alone. The options below are the
 * type test: the last test compiles this file under the repository's tsconfig (ts-jest here only
 * transpiles) and fails on any diagnostic, an unused `@ts-expect-error` included.
 */
import { join } from 'node:path';
import axios from 'axios';
import ts from 'typescript';
import { retryPlugin } from '../../lib';
import type {
  CircuitStateChange,
  DelayContext,
  GiveUpEvent,
  HedgeEvent,
  RateLimitEvent,
  RetryEvent,
  RetryPluginOptions,
  RetryRequestOptions,
} from '../../lib';
import { startServer } from '../support/test-server';

/** A logger whose methods return the logger, as winston's do. */
interface Logger {
  warn(message: string, meta?: unknown): Logger;
}
const lines: Array<[string, unknown]> = [];
const logger: Logger = {
  warn(message, meta) {
    lines.push([message, meta]);
    return logger;
  },
};

const retries: RetryEvent[] = [];
const giveUps: GiveUpEvent[] = [];
const attempts: number[] = [];
const hedges: HedgeEvent[] = [];
const changes: CircuitStateChange[] = [];
const limits: RateLimitEvent[] = [];
const delays: DelayContext[] = [];

const options: RetryPluginOptions = {
  retries: 2,
  baseDelayMs: 0,
  random: () => 0,
  onRetry: (event) => logger.warn('retrying', event.reason),
  onGiveUp: (event) => giveUps.push(event),
  beforeAttempt: (_config, info) => attempts.push(info.attempt),
  onHedge: (event) => hedges.push(event),
  onCircuitStateChange: (change) => changes.push(change),
  onRateLimit: (event) => logger.warn('rate limit', event),
  // Nothing returned: the decision table keeps its word.
  shouldRetry: (ctx) => {
    logger.warn('asked', ctx.decision.reason);
  },
  shouldRetryResponse: async (ctx) => ctx.response?.status === 202,
  delay: (ctx) => {
    delays.push(ctx);
    return ctx.serverMs === undefined ? ctx.computedMs : undefined;
  },
  unsafeRetryWrites: false,
};
const perRequest: RetryRequestOptions = {
  onRetry: (event) => retries.push(event),
  beforeAttempt: async () => logger.warn('attempt'),
  shouldRetryResponse: () => undefined,
  unsafeRetryWrites: true,
};

// @ts-expect-error a predicate's answer is a boolean or nothing: a logger is neither
const answersWithALogger: RetryPluginOptions = { shouldRetry: (ctx) => logger.warn('asked', ctx) };
// @ts-expect-error delay returns ms (a number) or undefined
const delayAsText: RetryPluginOptions = { delay: () => '100' };
// Never called: only its type is under test.
const sendsTrue = () =>
  // @ts-expect-error per request, true is not a setting: omit the field or give an object
  axios.get('http://127.0.0.1/', { retry: true });

test('hooks written as users write them run, and their return values change nothing', async () => {
  // 503, then 200: one retry, then success; and a path that always fails, for onGiveUp.
  const server = await startServer((request, response, index) => {
    response.statusCode = request.url === '/down' || index === 0 ? 503 : 200;
    response.end();
  });
  const plugin = retryPlugin({ ...options, budget: false, breaker: false });
  try {
    const http = axios.create();
    plugin.install(http);
    const response = await http.get(`${server.url}/up`, { retry: perRequest });
    expect(response.status).toBe(200);
    expect(response.config.retryState?.attempts).toBe(2);
    expect(retries.map((event) => event.reason)).toEqual(['503']);
    expect(lines.filter(([message]) => message === 'attempt')).toHaveLength(2);

    await http.get(`${server.url}/down`).catch(() => undefined);
    expect(attempts).toEqual([1, 2, 3]);
    expect(lines.filter(([message]) => message === 'retrying').map(([, reason]) => reason)).toEqual(['503', '503']);
    expect(giveUps.map((event) => event.stopReason)).toEqual(['retries-exhausted']);
  } finally {
    await plugin.close();
    await server.close();
  }
});

test('this file compiles under the repository tsconfig', () => {
  const root = join(__dirname, '../..');
  const { config } = ts.readConfigFile(join(root, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const program = ts.createProgram([__filename], { ...parsed.options, noEmit: true });
  const source = program.getSourceFile(__filename);
  const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
  const text = diagnostics.map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    return `line ${line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
  expect(text).toEqual([]);
  void [answersWithALogger, delayAsText, sendsTrue, hedges, changes, limits, delays];
}, 60_000);
