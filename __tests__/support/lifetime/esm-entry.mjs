/* global performance */
// An ES module script that awaits the scenario's calls at top level (Node ends a process that
// exits while they wait with code 13, "unsettled top-level await"): it prints how they ended, then,
// as it exits, how long after they settled. The plugin is the sources (run through tsx) or, with
// LIFETIME_LIB=dist, the ES module build.
import scenarios from './scenarios.cjs';

const lib = await import(process.env.LIFETIME_LIB === 'dist' ? '../../../dist/index.mjs' : '../../../lib/index.ts');
const [name, base] = process.argv.slice(-2);
let settledAt;
process.on('exit', (code) => {
  const lingerMs = settledAt === undefined ? null : performance.now() - settledAt;
  process.stdout.write(`${JSON.stringify({ exit: code, lingerMs })}\n`);
});
const calls = await scenarios.runScenario(lib, name, base, 'esm');
settledAt = performance.now();
const timers = await scenarios.timersLeft();
process.stdout.write(`${JSON.stringify({ calls, timers })}\n`);
