/**
 * A process that used the plugin exits by itself once its work is done and plugin.close() was
 * called: no timer, interval or breaker keeps it alive. Waits are 30 s long, so a wait that
 * close() or the abort did not end would hold the child far past the 1 s limit.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { reportFigures } from '../support/figures';
import { startServer } from '../support/test-server';

test('the child exits within 1 s of returning from main, after retried, aborted and pending calls', async () => {
  const hits = new Map<string, number>();
  const server = await startServer((req, res) => {
    const n = (hits.get(req.url) ?? 0) + 1;
    hits.set(req.url, n);
    if (req.url === '/flaky' && n > 2) res.writeHead(200).end('{}');
    // No Retry-After: since issue 22 one pauses the whole origin, and the child's next call would queue unsent.
    else res.writeHead(503).end();
  });
  try {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(__dirname, '..', 'support', 'reliability', 'exit-child.ts'), server.url],
      {
        cwd: path.resolve(__dirname, '../..'),
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let output = '';
    let returnedAt: number | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (returnedAt === undefined && output.includes('main returned')) returnedAt = performance.now();
    });
    const exit = await new Promise<{ code: number | null; at: number }>((resolve) => {
      const killer = setTimeout(() => child.kill(), 15_000);
      child.on('exit', (code) => {
        clearTimeout(killer);
        resolve({ code, at: performance.now() });
      });
    });
    expect(exit.code).toBe(0);
    expect(JSON.parse(output.split('\n')[0]!)).toEqual({
      retried: 'resolved',
      aborted: 'cancelled',
      pending: 'aborted',
    });
    expect(returnedAt).toBeDefined();
    const lingerMs = exit.at - returnedAt!;
    reportFigures('exit', `child exited ${lingerMs.toFixed(0)} ms after main returned`);
    expect(lingerMs).toBeLessThan(1000);
    expect(hits.get('/flaky')).toBe(3);
    expect(hits.get('/long-wait')).toBe(2);
  } finally {
    await server.close();
  }
}, 20_000);
