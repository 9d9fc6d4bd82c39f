import { spawn } from 'node:child_process';
import type http from 'node:http';
import path from 'node:path';
import { createInterface } from 'node:readline';

/** The header a rate worker's attempt carries: when it left its turn, in ms since the epoch. */
export const LEFT_AT = 'x-left-turn-at';

/**
 * Starts `count` worker processes running `script` (a file in this folder) with `job` as JSON on
 * their command line. Each prints "ready", then waits for "go" on stdin: once all are ready, `go()`
 * runs and they are released together. Returns the JSON line each prints last; each must exit 0.
 */
export async function runWorkers<T>(script: string, count: number, job: unknown, go?: () => void): Promise<T[]> {
  const workers = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, script), JSON.stringify(job)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: child.stdout! });
    const queue: string[] = [];
    const waiters: Array<(line: string) => void> = [];
    lines.on('line', (line) => (waiters.length ? waiters.shift()!(line) : queue.push(line)));
    const next = () =>
      new Promise<string>((resolve) => (queue.length ? resolve(queue.shift()!) : waiters.push(resolve)));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    return { child, next, exited };
  });
  for (const w of workers) expect(await w.next()).toBe('ready');
  go?.();
  for (const w of workers) w.child.stdin!.end('go\n');
  const results = await Promise.all(workers.map(async (w) => JSON.parse(await w.next()) as T));
  expect(await Promise.all(workers.map((w) => w.exited))).toEqual(workers.map(() => 0));
  return results;
}

/** Closes a test server and every connection it holds. */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/**
 * Checks `condition` every 10 ms until it holds. The 10 s bound only tells "never" from "late on a
 * loaded machine": a condition that holds returns at once, and what a test asserts is that it came.
 */
export async function waitUntil(what: string, condition: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
