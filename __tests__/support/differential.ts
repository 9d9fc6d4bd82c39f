/**
 * Differential transparency: one call sent through plain axios and through an instance with the
 * plugin, against the same real server, and what the server received from each, in a form that
 * can be compared with `toEqual`. Boundaries are random, so a multipart body is compared part by
 * part and its boundary is written as `<boundary>` in the headers; every other body byte for byte.
 */
import axios from 'axios';
import type { AxiosInstance, AxiosRequestConfig, CreateAxiosDefaults } from 'axios';
import { retryPlugin } from '../../lib';
import type { RetryPluginOptions } from '../../lib';
import { boundaryOf, parseMultipart } from './multipart';
import type { Part } from './multipart';
import type { WireRequest, WireServer } from './wire-server';

/** What the server saw of one request, ready to compare. */
export interface Received {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** Multipart bodies as their parts, others as base64 bytes. */
  body: Part[] | string;
  /** The Idempotency-Key sent, if any (compared on its own: plain axios sends none). */
  key: string | undefined;
}

/** The request as the test compares it. */
export function received(request: WireRequest): Received {
  const headers: Record<string, string | string[] | undefined> = { ...request.headers };
  const key = headers['idempotency-key'] as string | undefined;
  delete headers['idempotency-key'];
  const contentType = headers['content-type'] as string | undefined;
  const boundary = boundaryOf(contentType);
  let body: Part[] | string = request.body.toString('base64');
  if (boundary !== undefined && /^multipart\//i.test(contentType ?? '')) {
    headers['content-type'] = contentType!.replace(boundary, '<boundary>');
    body = parseMultipart(request.body, boundary);
  }
  return { method: request.method, url: request.url, headers, body, key };
}

/** One call; `config` (the per-request `retry` of a retried call) goes into the call's own config. */
export type Call = (http: AxiosInstance, config: AxiosRequestConfig) => Promise<unknown>;

/** axios's two Node adapters. */
export type NodeAdapter = 'http' | 'fetch';

export interface DifferentialOptions {
  defaults?: CreateAxiosDefaults;
  plugin?: RetryPluginOptions;
  /** The adapter of both instances; absent: axios's own choice (http in Node). */
  adapter?: NodeAdapter;
}

function instanceDefaults(server: WireServer, options: DifferentialOptions): CreateAxiosDefaults {
  return {
    baseURL: server.url,
    ...(options.adapter === undefined ? {} : { adapter: options.adapter }),
    ...options.defaults,
  };
}

/**
 * Sends `call` twice, once per instance (each made with `defaults`), and returns what the server
 * received for each: `plain` from bare axios, `plugin` from the plugin's first attempt. `make`
 * builds the call afresh for each side, since a stream body can be read only once.
 */
export async function sendBoth(
  server: WireServer,
  make: () => Call,
  options: DifferentialOptions = {},
): Promise<{ plain: Received; plugin: Received; pluginRequests: WireRequest[] }> {
  const defaults = instanceDefaults(server, options);
  const bare = axios.create(defaults);
  const before = server.requests.length;
  await make()(bare, {});
  const plain = received(server.requests[before]!);
  const http = axios.create(defaults);
  const plugin = retryPlugin({ random: () => 0, ...options.plugin });
  plugin.install(http);
  try {
    const start = server.requests.length;
    await make()(http, {});
    const pluginRequests = server.requests.slice(start);
    return { plain, plugin: received(pluginRequests[0]!), pluginRequests };
  } finally {
    await plugin.close();
  }
}

/** The key a retried call pins (a caller's key: retried whatever the method, and the same on every attempt). */
export const RETRY_KEY = 'k-1';

/**
 * Sends `make`'s call once through an instance with the plugin while the server answers its first
 * attempt 503 and the next 200, with `retry: { idempotencyKey: RETRY_KEY }` in the call's config.
 * Returns the requests the server received for that call, in order (two when the retry worked).
 */
export async function sendRetried(
  server: WireServer,
  make: () => Call,
  options: DifferentialOptions = {},
): Promise<{ status: number; requests: WireRequest[] }> {
  const http = axios.create(instanceDefaults(server, options));
  const plugin = retryPlugin({ random: () => 0, ...options.plugin });
  plugin.install(http);
  const start = server.requests.length;
  server.handle((_request, res, index) => {
    if (index === start) res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  try {
    const response = (await make()(http, { retry: { idempotencyKey: RETRY_KEY } })) as { status: number };
    return { status: response.status, requests: server.requests.slice(start) };
  } finally {
    server.handle((_request, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
    await plugin.close();
  }
}
