// Checks the "size-limit" budgets in package.json (the Node entry) and the browser budgets in
// .size-limit.browser.json (what the plugin adds to a browser app, brotli -11, with esbuild and
// with Vite: bench/browser-size.mjs; README "Size"). The first part drives size-limit's own plugins (rolldown
// bundle, minified, brotli) through its JS API, because the size-limit 14 CLI needs Node 22 while
// the project supports Node 20; the numbers are the ones `npx size-limit` prints on Node 22.
import sizeLimit from 'size-limit';
import rolldown from '@size-limit/rolldown';
import file from '@size-limit/file';
import { readFileSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { measure, minus } from '../../bench/browser-size.mjs';

const UNITS = { B: 1, kB: 1000, KB: 1000, MB: 1000 * 1000 };

function parseLimit(text) {
  const match = /^\s*([\d.]+)\s*(B|kB|KB|MB)\s*$/.exec(text);
  if (match === null) throw new Error(`size: cannot read limit "${text}" (use "6.6 kB" or "6600 B")`);
  return Math.round(Number(match[1]) * UNITS[match[2]]);
}

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const budgets = pkg['size-limit'];
if (!Array.isArray(budgets) || budgets.length === 0) throw new Error('size: package.json has no "size-limit" entries');

let failed = false;
for (const budget of budgets) {
  const path = resolve(budget.path);
  if (!existsSync(path)) {
    console.error(`size: ${budget.path} is missing; run npm run build first`);
    process.exit(1);
  }
  const check = { name: budget.name, path: budget.path, files: [path], ignore: budget.ignore ?? [] };
  const [result] = await sizeLimit([rolldown, file], { cwd: process.cwd(), checks: [check] });
  const limit = parseLimit(budget.limit);
  const ok = result.size <= limit;
  failed ||= !ok;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${budget.name}: ${result.size} B brotlied (limit ${budget.limit} = ${limit} B)`);
}

const browserBudgets = JSON.parse(readFileSync('.size-limit.browser.json', 'utf8'));
const added = await measure([...new Set(browserBudgets.flatMap((b) => [b.app, b.over ?? b.app]))]);
for (const budget of browserBudgets) {
  const limit = parseLimit(budget.limit);
  for (const [bundler, apps] of Object.entries(added)) {
    const size = (budget.over === undefined ? apps[budget.app] : minus(apps[budget.app], apps[budget.over])).brotli;
    const ok = size <= limit;
    failed ||= !ok;
    console.log(
      `${ok ? 'ok  ' : 'FAIL'} ${budget.name} (${bundler}): ${size} B brotlied (limit ${budget.limit} = ${limit} B)`,
    );
  }
}
process.exit(failed ? 1 : 0);
