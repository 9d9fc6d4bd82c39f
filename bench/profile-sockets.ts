/**
 * A CPU-profile target over real sockets: GETs at concurrency 32 to the child-process server.
 *
 *   node --cpu-prof --cpu-prof-dir=.bench-tmp/prof --import tsx bench/profile-sockets.ts [bare|plugin] [requests]
 */
import { drive, keepAliveAgent, makeContender, startServer } from './common';

async function main(): Promise<void> {
  const which = process.argv[2] === 'bare' ? 'bare axios' : 'axios-resilience';
  const requests = Number(process.argv[3] ?? 20000);
  const server = await startServer();
  const agent = keepAliveAgent();
  const c = makeContender(which, { baseURL: server.url, agent });
  const seconds = await drive(requests, 32, () => c.http.get('/items/1'));
  console.log(`${which}: ${(requests / seconds).toFixed(0)} req/s`);
  await c.close();
  agent.destroy();
  await server.close();
}

void main();
