import axios, { AxiosError } from 'axios';
import type { AxiosInstance, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { retryPlugin } from '../../lib';
import type { RetryPlugin, RetryPluginOptions } from '../../lib';

export interface Client {
  http: AxiosInstance;
  plugin: RetryPlugin;
  eject: () => void;
}

const open: RetryPlugin[] = [];

/**
 * An axios instance with the plugin installed. Waits are zero by default (random() = 0) so tests
 * that are not about timing run at once; budget and breaker are off unless a test turns them on.
 */
export function client(options: RetryPluginOptions = {}): Client {
  const http = axios.create();
  const plugin = retryPlugin({ random: () => 0, budget: false, breaker: false, ...options });
  const eject = plugin.install(http);
  open.push(plugin);
  return { http, plugin, eject };
}

/** Closes every plugin made by `client()`. */
export async function closePlugins(): Promise<void> {
  while (open.length) await open.pop()!.close();
}

/** Rejects (instead of resolving) so `await expect(rejection(p))` reads naturally. */
export async function rejection(promise: Promise<unknown>): Promise<Record<string, unknown> & Error> {
  try {
    await promise;
  } catch (error) {
    return error as Record<string, unknown> & Error;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

/** Fakes only the timers the plugin waits on; nock's replies and real sockets keep running. */
export function fake(now?: number): void {
  jest.useFakeTimers({
    doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'],
    ...(now === undefined ? {} : { now }),
  });
}

export const realTick = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs real I/O (and zero-length fake timers, when faked) until `done()` holds; bounded. */
export async function until(done: () => boolean): Promise<void> {
  const faked = jest.isMockFunction(setTimeout) || typeof (setTimeout as { clock?: unknown }).clock === 'object';
  for (let i = 0; i < 500 && !done(); i++) {
    await realTick();
    if (faked) await jest.advanceTimersByTimeAsync(0);
  }
  for (let i = 0; i < 5; i++) await realTick();
}

/**
 * A stand-in for the network below axios: each attempt takes the next step (the last repeats): a
 * status, or an error code such as 'ECONNRESET' that fails the attempt as axios's http adapter
 * would. Records the config of every attempt. (nock's replyWithError leaves mock sockets that
 * jest's --detectOpenHandles reports, so network errors are scripted here instead.)
 */
export function scriptedAdapter(steps: Array<number | string>) {
  const attempts: InternalAxiosRequestConfig[] = [];
  const adapter = async (config: InternalAxiosRequestConfig): Promise<AxiosResponse> => {
    attempts.push(config);
    const step = steps[Math.min(attempts.length - 1, steps.length - 1)]!;
    if (typeof step === 'string') throw new AxiosError(`${step} (scripted)`, step, config, {});
    const response: AxiosResponse = { status: step, statusText: '', headers: {}, config, data: { n: attempts.length } };
    if (step >= 400)
      throw new AxiosError(`Request failed with status code ${step}`, 'ERR_BAD_RESPONSE', config, {}, response);
    return response;
  };
  return { adapter, attempts };
}

/**
 * A failed call's words and its story: axios's own message, and what the plugin told after it on the
 * first line of the stack, in parentheses (`4 attempts over 1.3 s; stopped: retries-exhausted`), or
 * `undefined` when it told none. The message itself is never changed (contract release 6).
 */
export function storyOf(error: { message?: unknown; stack?: unknown }): { words: string; story: string | undefined } {
  const words = String(error.message);
  const stack = typeof error.stack === 'string' ? error.stack : '';
  const match = / \(((?:\d+ attempts? over [^;\n]+|nothing sent); stopped: [^\n]*)\)(?:\n|$)/.exec(stack);
  return { words, story: match === null ? undefined : match[1] };
}
