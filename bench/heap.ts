/**
 * Heap retained by one contender over N stub calls, measured in a process of its own so nothing
 * another contender allocated or freed is counted. Run by bench/overhead.ts; prints JSON.
 *
 *   node --expose-gc --import tsx bench/heap.ts <contender> <get|post> <calls>
 */
import { makeContender, stubAdapter } from './common';
import type { ContenderName } from './common';

const yieldOnce = (): Promise<void> => new Promise((done) => setImmediate(done));

async function main(): Promise<void> {
  const [name, method, callsText] = process.argv.slice(2) as [ContenderName, string, string];
  const calls = Number(callsText);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  const c = makeContender(name, { baseURL: 'http://stub.local', adapter: stubAdapter });
  const call = method === 'post' ? () => c.http.post('/payments', { amount: 1 }) : () => c.http.get('/items/1');
  // Stub calls never leave the microtask queue; yielding every 1000 calls lets timers run, as they
  // would in a real program (opossum's rolling window rotates on one).
  const run = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i++) {
      await call();
      if (i % 1000 === 999) await yieldOnce();
    }
  };
  await run(5000);
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  await run(calls);
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  await c.close();
  process.stdout.write(JSON.stringify({ bytes: after - before }) + '\n');
}

void main();
