/** Prints the functions with the most self time in a `.cpuprofile`, grouped by file. */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const profile = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Profile;
const top = Number(process.argv[3] ?? 40);
const self = new Map<number, number>();
for (const [i, id] of profile.samples.entries()) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
for (const node of profile.nodes) {
  const t = self.get(node.id) ?? 0;
  const file =
    node.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/\/work\/main\//, '') || '(native)';
  const name = `${node.callFrame.functionName || '(anonymous)'}  ${file}:${node.callFrame.lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + t);
  const pkg = file.startsWith('lib/') ? file : file.split('/')[0]!;
  byFile.set(pkg, (byFile.get(pkg) ?? 0) + t);
}
const pct = (t: number): string => ((100 * t) / total).toFixed(1).padStart(5) + ' %';
console.log('self time by file/package:');
for (const [k, t] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(pct(t), k);
console.log('\nself time by function:');
for (const [k, t] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(pct(t), k);
