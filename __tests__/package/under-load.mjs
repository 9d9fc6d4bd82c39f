// Runs a command (by default the README's `npm test`) with one CPU-bound loop per core beside it,
// as a busy CI machine would, and reports how long it took and whether it passed:
//   npm run test:loaded                 # npm test beside a busy loop per core
//   npm run test:loaded -- bash .ci/run # any command
// The loops stop when the command ends (or this script is interrupted).
import { spawn } from 'node:child_process';
import os from 'node:os';
import { setInterval, clearInterval } from 'node:timers';

const command = process.argv.length > 2 ? process.argv.slice(2) : ['npm', 'test'];
const loops = Array.from({ length: os.availableParallelism() }, () =>
  spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
);
const stopLoops = () => loops.forEach((loop) => loop.kill('SIGKILL'));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => (stopLoops(), process.exit(130)));

const started = Date.now();
const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });
const loadAt = [];
const sample = setInterval(() => loadAt.push(os.loadavg()[0]), 15_000);
child.on('exit', (code, signal) => {
  clearInterval(sample);
  stopLoops();
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  const load = loadAt.length > 0 ? Math.max(...loadAt).toFixed(1) : os.loadavg()[0].toFixed(1);
  const result = code === 0 ? 'passed' : `FAILED (${signal ?? `exit ${code}`})`;
  console.log(
    `under load (${loops.length} busy loops, peak 1-min load ${load}): \`${command.join(' ')}\` ${result} in ${seconds} s`,
  );
  process.exit(code ?? 1);
});
