/**
 * The benches' HTTP server, forked by startServer (harness.ts) so that its CPU is not the client's:
 * on 127.0.0.1 at a random port (sent to the parent), it answers `configure` (what to do, below;
 * zeroes the counts) and `stats` (the counts since the last question, then zeroes them). Every answer
 * is a small JSON body, sent once the request body has been read. A server for a new question is a
 * new field of ServerOptions and its check in `answer`.
 */
import { createServer } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { seededRandom } from '../lib/testing';
import { CALL_ID } from './call-id';
import { matches, take } from './quotas';
import type { BucketHints, Dialect, Quota, QuotaAnswer, QuotaState } from './quotas';

export interface ServerOptions {
  /** Fail everything until `endAt` (epoch ms; both processes share the clock), counting from `startAt`. */
  outage?: { startAt: number; endAt: number };
  /**
   * Fail this share of requests, drawn at random (seeded): a server or proxy that refuses some calls
   * whatever the rate. Each request's draw is fixed by its call and how many requests of the call
   * came before, so every contender meets the same refusals, and the stats name the calls that had one.
   */
  failShare?: { share: number; seed: number };
  /** Fail every request whose path begins with one of these (a route that is down). */
  failPaths?: string[];
  /** Answer a bare 429 to a request that finds this many others in flight. */
  maxInFlight?: number;
  /** Quotas as vendors document them (quotas.ts); the first one that matches a request counts it. */
  quotas?: Quota[];
  /** Answer every failure and refusal without the `latency`: a gateway refuses before the work. */
  refusalsAtOnce?: boolean;
  /** The status of a failure (default 503). */
  failStatus?: number;
  /** Delay each answer: `slowShare` of them by a time drawn from `slowMs`, the rest from `fastMs` (seeded). */
  latency?: { seed: number; slowShare: number; slowMs: [number, number]; fastMs: [number, number] };
  /**
   * A rate limit of `ratePerSecond`, 429 beyond, told as `hints` says, each as its documentation defines
   * it. A token bucket (`burst`) silent on its successes, as nginx's `limit_req`, Envoy and most gateways
   * are, refusing with `Retry-After: 1` (`retry-after`), nothing (`none`), `X-RateLimit-Limit`,
   * `-Remaining: 0` and a reset at the next second (`bucket-x-ratelimit`) or `RateLimit: "default";r=0;t=1`
   * (`bucket-ratelimit`); or fixed windows of a second, which is what the IETF draft's `RateLimit` and
   * `RateLimit-Policy` (`ratelimit`) and GitHub's `X-RateLimit-*` (`x-ratelimit`, the reset in UTC epoch
   * seconds) describe, on every answer. Requests and 429s from `steadyFrom` (epoch ms) on count apart.
   */
  bucket?: { ratePerSecond: number; burst: number; hints: BucketHints; steadyFrom: number };
}

/** What a token bucket's 429 says, per `hints` (nothing on its successes). */
function refusalHeaders(hints: BucketHints, now: number, rate: number): Record<string, string> {
  if (hints === 'retry-after') return { 'retry-after': '1' };
  if (hints === 'bucket-ratelimit') return { ratelimit: '"default";r=0;t=1' };
  if (hints !== 'bucket-x-ratelimit') return {};
  const reset = String(Math.floor(now / 1000) + 1);
  return { 'x-ratelimit-limit': String(rate), 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset };
}

export interface ServerStats {
  requests: number;
  /** Requests that arrived between the outage's start and end. */
  duringOutage: number;
  /** Requests answered with the failure status (`failStatus`). */
  failed: number;
  /** Requests refused by a limit (the bucket, a quota, the in-flight limit), and both counts from `bucket.steadyFrom` on. */
  refused: number;
  steadyRequests: number;
  steadyRefused: number;
  /** The calls that had a request failed by `failShare`. */
  failedIds: string[];
}

let options: ServerOptions = {};
let random = Math.random;
const COUNTS = { requests: 0, duringOutage: 0, failed: 0, refused: 0, steadyRequests: 0, steadyRefused: 0 };
const zero = (): ServerStats => ({ ...COUNTS, failedIds: [] });
let stats: ServerStats = zero();
let tokens = 0;
let filledAt = 0;

/** Takes a token from the bucket: `undefined` without one (or with fixed windows, which are quotas), else whether one was there. */
function takeToken(now: number): boolean | undefined {
  const bucket = options.bucket;
  if (bucket === undefined || WINDOWS[bucket.hints] !== undefined) return undefined;
  tokens = Math.min(bucket.burst, tokens + ((now - filledAt) * bucket.ratePerSecond) / 1000);
  filledAt = now;
  if (tokens < 1) return false;
  tokens -= 1;
  return true;
}

/** The hints that describe fixed windows of a second, and the dialect quotas.ts keeps each in. */
const WINDOWS: Partial<Record<BucketHints, Dialect>> = { ratelimit: 'ietf', 'x-ratelimit': 'x-ratelimit' };
function windows(bucket: ServerOptions['bucket'], now: number): Quota[] {
  const dialect = bucket && WINDOWS[bucket.hints];
  if (bucket === undefined || dialect === undefined) return [];
  const [limit, resetAt] = [bucket.ratePerSecond, (Math.floor(now / 1000) + 1) * 1000];
  return [{ dialect, path: '/', limit, remaining: limit, windowMs: 1000, resetAt, status: 429 }];
}

/** How many requests each call has sent. */
const attempts = new Map<string, number>();
/** The calls that had a request failed since the last `stats`. */
const failedCalls = new Set<string>();
let quotas: QuotaState[] = [];
let inFlight = 0;

/** A draw in [0, 1) fixed by `seed` and `key` (FNV-1a, then a 32-bit finaliser). */
function drawFor(seed: number, key: string): number {
  let h = (seed ^ 0x811c9dc5) >>> 0;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 2 ** 32;
}

/** What a limit says of this request: the in-flight limit's bare 429, or a quota's answer; `undefined` when none applies. */
function limit(req: IncomingMessage, body: Buffer, now: number, admitted: boolean): QuotaAnswer | undefined {
  if (!admitted) return { ok: false, status: 429, headers: {} };
  const path = req.url ?? '/';
  let model: unknown;
  if (quotas.some((q) => q.model !== undefined)) {
    try {
      model = (JSON.parse(body.toString()) as { model?: unknown }).model;
    } catch {
      model = undefined;
    }
  }
  const quota = quotas.find((q) => matches(q, path, model));
  return quota === undefined ? undefined : take(quota, now);
}

/** Whether this request fails, and the delay before the answer. */
function answer(req: IncomingMessage, now: number): { fail: boolean; delayMs: number } {
  let fail = false;
  const outage = options.outage;
  if (outage !== undefined && now < outage.endAt) {
    fail = true;
    if (now >= outage.startAt) stats.duringOutage++;
  }
  const call = String(req.headers[CALL_ID]);
  const n = attempts.get(call) ?? 0;
  attempts.set(call, n + 1);
  const share = options.failShare;
  if (share !== undefined && drawFor(share.seed, `${call}:${n}`) < share.share) {
    failedCalls.add(call);
    fail = true;
  }
  if (options.failPaths?.some((prefix) => req.url?.startsWith(prefix))) fail = true;
  if (fail) stats.failed++;
  return { fail, delayMs: latency() };
}

function latency(): number {
  if (options.latency === undefined) return 0;
  const [low, high] = random() < options.latency.slowShare ? options.latency.slowMs : options.latency.fastMs;
  return low + random() * (high - low);
}

const okBody = '{"ok":true}';
const server = createServer((req, res) => {
  stats.requests++;
  // In flight from its arrival until its answer is sent or its socket closes; one refused for the limit is not.
  const admitted = options.maxInFlight === undefined || inFlight < options.maxInFlight;
  if (admitted) {
    inFlight++;
    res.once('close', () => inFlight--);
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const now = Date.now();
    const limited = limit(req, Buffer.concat(chunks), now, admitted);
    const { fail, delayMs } = limited?.ok === false ? { fail: false, delayMs: latency() } : answer(req, now);
    const token = limited?.ok === false ? undefined : takeToken(now);
    const refused = limited?.ok === false || token === false;
    if (refused) stats.refused++;
    if (options.bucket !== undefined && now >= options.bucket.steadyFrom) {
      stats.steadyRequests++;
      if (refused) stats.steadyRefused++;
    }
    const status = fail ? (options.failStatus ?? 503) : refused ? (limited?.status ?? 429) : 200;
    const body = limited?.body ?? okBody;
    const headers = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      ...(token === false ? refusalHeaders(options.bucket!.hints, now, options.bucket!.ratePerSecond) : {}),
      ...limited?.headers,
    };
    const send = (): void => {
      res.writeHead(status, headers);
      res.end(body);
    };
    const wait = options.refusalsAtOnce === true && status !== 200 ? 0 : delayMs;
    if (wait > 0) setTimeout(send, wait);
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
    attempts.clear();
    filledAt = Date.now();
    quotas = [...(options.quotas ?? []), ...windows(options.bucket, filledAt)].map((q) => ({ ...q }));
    tokens = options.bucket?.burst ?? 0;
  }
  process.send?.({ ...stats, failedIds: [...failedCalls] });
  stats = zero();
  failedCalls.clear();
});

// The parent going away (or closing the IPC channel) ends the server.
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
