// Packs the package the way `npm publish` would and checks the tarball: the file list is exactly
// dist/ plus README, LICENSE, CHANGELOG and package.json; nothing points at a missing source map;
// publint (strict: warnings fail) and arethetypeswrong find no problem. Run after `npm run build`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REQUIRED = ['README.md', 'LICENSE', 'CHANGELOG.md', 'package.json'];
const problems = [];
const dir = mkdtempSync(join(tmpdir(), 'axios-resilience-pack-'));

try {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { encoding: 'utf8' });
  const [info] = JSON.parse(out);
  const tarball = join(dir, info.filename);
  const files = info.files.map((f) => f.path).sort();
  console.log(`packed ${info.filename}: ${files.length} files, ${info.size} B`);
  for (const f of files) console.log(`  ${f}`);

  for (const f of files) {
    if (!f.startsWith('dist/') && !REQUIRED.includes(f)) problems.push(`unexpected file in the tarball: ${f}`);
    if (f.endsWith('.map')) problems.push(`source map in the tarball: ${f}`);
  }
  for (const f of REQUIRED) if (!files.includes(f)) problems.push(`missing from the tarball: ${f}`);
  if (!files.some((f) => f.startsWith('dist/'))) problems.push('no dist/ in the tarball: run npm run build first');
  for (const f of files.filter((name) => /\.(c|m)?js$|\.d\.(c|m)?ts$/.test(name))) {
    if (/sourceMappingURL=/.test(readFileSync(f, 'utf8'))) problems.push(`${f} refers to a source map`);
  }
  const license = files.includes('LICENSE') ? readFileSync('LICENSE', 'utf8') : '';
  if (files.includes('LICENSE') && !/^MIT License/.test(license)) problems.push('LICENSE is not the MIT licence');

  const run = (cmd, args) => {
    try {
      execFileSync(cmd, args, { stdio: 'inherit' });
    } catch {
      problems.push(`${cmd} ${args.join(' ')} failed`);
    }
  };
  run('npx', ['publint', '--strict', tarball]);
  run('npx', ['attw', tarball]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

if (problems.length > 0) {
  console.error(`\ncheck:package found ${problems.length} problem(s):`);
  for (const p of problems) console.error(`  - ${p}`);
  process.exit(1);
}
console.log('\ncheck:package: tarball contents, publint and attw all clean');
