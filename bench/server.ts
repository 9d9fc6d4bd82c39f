/**
 * The benchmarks' HTTP server, forked by startServer (harness.ts) so that its CPU is not the
 * client's. It listens on 127.0.0.1 at a random port, sends the port to the parent, and then
 * answers two messages: `configure` (what to do, below; zeroes the counts) and `stats` (the counts
 * since the last question, then zeroes them). Every answer is a small JSON body, after the request
 * body has been read in full, as a real server would.
 *
 * A server for a new question is a new field of ServerOptions and its check in `answer`.
 */
import { createServer } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { seededRandom } from '../lib/testing';

export interface ServerOptions {
  /** Fail everything until `endAt` (epoch ms; both processes share the clock), counting from `startAt`. */
  outage?: { startAt: number; endAt: number };
  /** Fail the first request of every call, telling calls apart by this request header (a blip). */
  failFirstBy?: string;
  /** Fail this share of requests, drawn at random (seeded): a server or proxy that refuses some calls whatever the rate. */
  failShare?: { share: number; seed: number };
  /** The status of a failure (default 503), and headers sent with it, e.g. `{ 'retry-after': '1' }`. */
  failStatus?: number;
  failHeaders?: Record<string, string>;
  /** Delay each answer: `slowShare` of them by a time drawn from `slowMs`, the rest from `fastMs` (seeded). */
  latency?: { seed: number; slowShare: number; slowMs: [number, number]; fastMs: [number, number] };
  /**
   * A token bucket (`ratePerSecond`, `burst`): a request that finds no token is answered 429. `hints`
   * says what the server tells: `retry-after` (`Retry-After: 1` on a 429), `none`, `ratelimit` (the
   * IETF draft `RateLimit` and `RateLimit-Policy` on every answer) or `x-ratelimit` (`X-RateLimit-*`
   * on every answer, the reset in epoch seconds as GitHub sends it). Requests and 429s from
   * `steadyFrom` (epoch ms) on are counted apart.
   */
  bucket?: { ratePerSecond: number; burst: number; hints: BucketHints; steadyFrom: number };
}

export type BucketHints = 'retry-after' | 'none' | 'ratelimit' | 'x-ratelimit';

export interface ServerStats {
  requests: number;
  /** Requests the bucket refused (429), and both counts from `bucket.steadyFrom` on. */
  throttled: number;
  steadyRequests: number;
  steadyThrottled: number;
  /** Requests that arrived between the outage's start and end. */
  duringOutage: number;
  /** Requests answered with the failure status (`failStatus`). */
  failed: number;
}

let options: ServerOptions = {};
let random = Math.random;
let failDraw = Math.random;
const zero = (): ServerStats => ({
  requests: 0,
  duringOutage: 0,
  throttled: 0,
  steadyRequests: 0,
  steadyThrottled: 0,
  failed: 0,
});
let stats: ServerStats = zero();
let tokens = 0;
let filledAt = 0;

/** Takes a token from the bucket: `undefined` without a bucket, else whether one was there, and the headers to send. */
function takeToken(now: number): { ok: boolean; headers: Record<string, string> } | undefined {
  const bucket = options.bucket;
  if (bucket === undefined) return undefined;
  tokens = Math.min(bucket.burst, tokens + ((now - filledAt) * bucket.ratePerSecond) / 1000);
  filledAt = now;
  const ok = tokens >= 1;
  if (ok) tokens -= 1;
  if (now >= bucket.steadyFrom) {
    stats.steadyRequests++;
    if (!ok) stats.steadyThrottled++;
  }
  if (!ok) stats.throttled++;
  const headers: Record<string, string> = {};
  const remaining = Math.floor(tokens);
  // Seconds until the bucket is full again, at least one: what a server with whole-second fields says.
  const resetS = Math.max(1, Math.ceil((bucket.burst - tokens) / bucket.ratePerSecond));
  if (bucket.hints === 'retry-after' && !ok) headers['retry-after'] = '1';
  if (bucket.hints === 'ratelimit') {
    headers['ratelimit-policy'] = `"bucket";q=${bucket.ratePerSecond};w=1`;
    headers['ratelimit'] = `"bucket";r=${remaining};t=${resetS}`;
  }
  if (bucket.hints === 'x-ratelimit') {
    headers['x-ratelimit-limit'] = String(bucket.ratePerSecond);
    headers['x-ratelimit-remaining'] = String(remaining);
    headers['x-ratelimit-reset'] = String(Math.ceil(now / 1000) + resetS);
  }
  return { ok, headers };
}
/** The calls whose first request `failFirstBy` has failed; their next request succeeds. */
const failedOnce = new Set<string>();

/** Whether this request fails, and the delay before the answer. */
function answer(req: IncomingMessage, now: number): { fail: boolean; delayMs: number } {
  let fail = false;
  const outage = options.outage;
  if (outage !== undefined && now < outage.endAt) {
    fail = true;
    if (now >= outage.startAt) stats.duringOutage++;
  }
  const call = options.failFirstBy === undefined ? undefined : req.headers[options.failFirstBy];
  if (typeof call === 'string' && !failedOnce.delete(call)) {
    failedOnce.add(call);
    fail = true;
  }
  if (options.failShare !== undefined && failDraw() < options.failShare.share) fail = true;
  if (fail) stats.failed++;
  let delayMs = 0;
  if (options.latency !== undefined) {
    const [low, high] = random() < options.latency.slowShare ? options.latency.slowMs : options.latency.fastMs;
    delayMs = low + random() * (high - low);
  }
  return { fail, delayMs };
}

const body = Buffer.from('{"ok":true}');
const server = createServer((req, res) => {
  stats.requests++;
  req.resume();
  req.on('end', () => {
    const now = Date.now();
    const { fail, delayMs } = answer(req, now);
    const token = takeToken(now);
    const headers = { 'content-type': 'application/json', 'content-length': body.length, ...token?.headers };
    const send = (): void => {
      if (fail) res.writeHead(options.failStatus ?? 503, { ...headers, ...options.failHeaders });
      else if (token !== undefined && !token.ok) res.writeHead(429, headers);
      else res.writeHead(200, headers);
      res.end(body);
    };
    if (delayMs > 0) setTimeout(send, delayMs);
    else send();
  });
});
server.keepAliveTimeout = 60_000;

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  process.send?.({ port: address.port });
});

type Message = { type: 'configure'; options: ServerOptions } | { type: 'stats' };

process.on('message', (message: Message) => {
  if (message.type === 'configure') {
    options = message.options;
    random = options.latency === undefined ? Math.random : seededRandom(options.latency.seed);
    failDraw = options.failShare === undefined ? Math.random : seededRandom(options.failShare.seed);
    failedOnce.clear();
    tokens = options.bucket?.burst ?? 0;
    filledAt = Date.now();
  }
  process.send?.(stats);
  stats = zero();
});

// The parent going away (or closing the IPC channel) ends the server.
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
