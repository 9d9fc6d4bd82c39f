/* global performance */
// A CommonJS script whose only work is the scenario's calls, followed with .then (no await keeps it
// alive): it prints how they ended, then, as it exits, how long after they settled. The plugin is
// the sources (run through tsx) or, with LIFETIME_LIB=dist, the CommonJS build.
const { runScenario, timersLeft } = require('./scenarios.cjs');

const lib = process.env.LIFETIME_LIB === 'dist' ? require('../../../dist/index.cjs') : require('../../../lib/index.ts');
const [name, base] = process.argv.slice(-2);
let settledAt;
runScenario(lib, name, base, 'cjs').then(async (calls) => {
  settledAt = performance.now();
  const timers = await timersLeft();
  process.stdout.write(`${JSON.stringify({ calls, timers })}\n`);
});
process.on('exit', (code) => {
  const lingerMs = settledAt === undefined ? null : performance.now() - settledAt;
  process.stdout.write(`${JSON.stringify({ exit: code, lingerMs })}\n`);
});
