/**
 * Compares two `.cpuprofile`s of the same number of calls (see profile.ts): self time per call of
 * each function in B minus A, largest first. Shows what the plugin adds on top of bare axios.
 *
 *   npx tsx bench/profile-diff.ts bare.cpuprofile plugin.cpuprofile 200000
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function selfTimes(file: string): Map<string, number> {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const self = new Map<number, number>();
  for (const [i, id] of profile.samples.entries()) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const out = new Map<string, number>();
  for (const node of profile.nodes) {
    const f = node.callFrame;
    const where = f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/\/work\/main\//, '') || '(native)';
    const name = `${f.functionName || '(anonymous)'}  ${where}:${f.lineNumber + 1}:${f.columnNumber + 1}`;
    out.set(name, (out.get(name) ?? 0) + (self.get(node.id) ?? 0));
  }
  return out;
}

const [a, b, callsText, topText] = process.argv.slice(2);
const calls = Number(callsText);
const A = selfTimes(a!);
const B = selfTimes(b!);
const names = new Set([...A.keys(), ...B.keys()]);
const rows = [...names].map((n) => [n, ((B.get(n) ?? 0) - (A.get(n) ?? 0)) / calls] as const);
const total = (m: Map<string, number>): number => [...m.values()].reduce((x, y) => x + y, 0) / calls;
console.log(
  `A ${total(A).toFixed(2)} µs/call, B ${total(B).toFixed(2)} µs/call, B - A ${(total(B) - total(A)).toFixed(2)} µs/call\n`,
);
for (const [n, d] of rows.sort((x, y) => Math.abs(y[1]) - Math.abs(x[1])).slice(0, Number(topText ?? 30))) {
  console.log(d.toFixed(3).padStart(7), 'µs ', n);
}
