// Packs the package the way `npm publish` would and checks the tarball: the file list is exactly
// dist/, the documentation (docs/ and the recipes in examples/observability/) plus README,
// LICENSE, CHANGELOG and package.json; every relative link in a shipped Markdown file points at a
// file that ships too (package.json has no repository, so the docs must work from the tarball);
// nothing points at a missing source map; every file package.json `exports` names is in it; the
// `./otel` entry loads nothing from @opentelemetry (it must work without a peer); publint (strict:
// warnings fail) and arethetypeswrong find no problem. Run after `npm run build`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';

const REQUIRED = ['README.md', 'LICENSE', 'CHANGELOG.md', 'package.json'];
const SHIPPED_DIRS = ['dist/', 'docs/', 'examples/observability/'];
const problems = [];
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const dir = mkdtempSync(join(tmpdir(), 'axios-resilience-pack-'));

try {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { encoding: 'utf8' });
  const [info] = JSON.parse(out);
  const tarball = join(dir, info.filename);
  const files = info.files.map((f) => f.path).sort();
  console.log(`packed ${info.filename}: ${files.length} files, ${info.size} B`);
  for (const f of files) console.log(`  ${f}`);

  for (const f of files) {
    if (!SHIPPED_DIRS.some((dir) => f.startsWith(dir)) && !REQUIRED.includes(f)) {
      problems.push(`unexpected file in the tarball: ${f}`);
    }
    if (f.endsWith('.map')) problems.push(`source map in the tarball: ${f}`);
    if (/\.(png|jpe?g|gif|webp)$/i.test(f)) problems.push(`an image in the tarball (docs ship as text): ${f}`);
  }
  for (const f of REQUIRED) if (!files.includes(f)) problems.push(`missing from the tarball: ${f}`);
  if (!files.some((f) => f.startsWith('dist/'))) problems.push('no dist/ in the tarball: run npm run build first');
  for (const f of ['docs/guides/README.md', 'docs/api/README.md', 'examples/observability/otel.ts']) {
    if (!files.includes(f)) problems.push(`missing from the tarball: ${f}`);
  }
  for (const target of exportTargets(pkg.exports)) {
    if (!files.includes(target)) problems.push(`package.json exports ${target}, which is not in the tarball`);
  }
  for (const f of files.filter((name) => /^dist\/otel\./.test(name))) {
    const loads = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]@opentelemetry\//;
    // Doc comments may show a user's own import; only code counts.
    const code = readFileSync(f, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    if (loads.test(code)) problems.push(`${f} loads @opentelemetry: the otel entry must need no peer`);
  }
  for (const f of files.filter((name) => name.endsWith('.md'))) {
    for (const target of relativeLinks(readFileSync(f, 'utf8'))) {
      const resolved = posix.normalize(posix.join(dirname(f), decodeURI(target)));
      if (!files.includes(resolved)) problems.push(`${f} links to ${target}, which is not in the tarball`);
    }
  }
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

/** Every file path in an `exports` map, without the leading `./`. */
function exportTargets(node) {
  if (typeof node === 'string') return [posix.normalize(node)];
  return Object.values(node ?? {}).flatMap(exportTargets);
}

/** Targets of the Markdown links and images in `text` that are paths (no scheme, not an anchor), code blocks left out. */
function relativeLinks(text) {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  const targets = [];
  for (const [, target] of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
    targets.push(target.split('#')[0]);
  }
  return targets;
}

if (problems.length > 0) {
  console.error(`\ncheck:package found ${problems.length} problem(s):`);
  for (const p of problems) console.error(`  - ${p}`);
  process.exit(1);
}
console.log('\ncheck:package: tarball contents, publint and attw all clean');
