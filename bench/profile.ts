/**
 * A CPU-profile target: many GETs (or POSTs) through the plugin over a stub adapter.
 *
 *   node --cpu-prof --cpu-prof-dir=.bench-tmp --import tsx bench/profile.ts [get|post] [calls]
 *   npx tsx bench/profile-summary.ts .bench-tmp/<file>.cpuprofile
 */
import { makeContender, stubAdapter } from './common';

async function main(): Promise<void> {
  const method = process.argv[2] === 'post' ? 'post' : 'get';
  const calls = Number(process.argv[3] ?? 200000);
  const which = process.argv[4] === 'bare' ? 'bare axios' : 'axios-resilience';
  const c = makeContender(which, { baseURL: 'http://stub.local', adapter: stubAdapter });
  for (let i = 0; i < calls; i++) {
    await (method === 'post' ? c.http.post('/payments', { amount: 1 }) : c.http.get('/items/1'));
  }
  await c.close();
}

void main();
