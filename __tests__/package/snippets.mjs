// Type-checks every ```ts block in README.md, docs/*.md and docs/guides/*.md the way a user who
// pastes it would compile it: as an ES module (.mts) and as CommonJS (.cts), under `module:
// nodenext`, strict, against the built package. `axios-resilience` resolves through package.json
// `exports` to this repository's dist/ (a temporary node_modules/axios-resilience links to the
// repository root), so run `npm run build` first. A broken snippet fails the run with its file and
// line: `docs/guides/testing.md:42:7 (esm) TS2304: Cannot find name 'x'.`
//
// Conventions, for snippets that are deliberately partial (most are fragments of a guide that
// showed its imports once, at the top):
// - Each snippet is compiled as the body of an async function, its imports and `declare`
//   statements hoisted out: a fragment may `await` and `return`, as the code around it in a
//   user's program would, in both the ESM and the CommonJS pass.
// - Free names: a snippet may use the names in PREAMBLE below without importing or declaring
//   them: the package's exports (`retryPlugin`, `startFaultServer`, …) and `axios`, which are
//   imported for it, and the placeholders a guide's prose introduces (`http`, `plugin`, `body`,
//   `logger`, …), declared with their real types. Each is added only when the snippet uses it
//   and does not import or declare it itself, so its use is still type-checked.
// - `./otel.js` and `./pino.js` are the recipes in examples/observability/, copied next to the
//   snippets with their '../../lib' import changed to 'axios-resilience', as the guide tells
//   users to do.
// - pino is not a dependency of this project: the slice of its API the guides use is declared
//   in AMBIENT below.
// - `<!-- snippet: skip: <reason> -->` on the line before the fence leaves a block out. The
//   reason is required. Use it sparingly: for a block that is not meant to compile at all.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Names a snippet may use without declaring them, with their types. */
const PREAMBLE = {
  // What a guide imported at its top: imported the same way here.
  axios: "import axios from 'axios';",
  retryPlugin: "import { retryPlugin } from 'axios-resilience';",
  RetryBudget: "import { RetryBudget } from 'axios-resilience';",
  CircuitOpenError: "import { CircuitOpenError } from 'axios-resilience';",
  DEFAULT_STATUS_CODES: "import { DEFAULT_STATUS_CODES } from 'axios-resilience';",
  DEFAULT_ERROR_CODES: "import { DEFAULT_ERROR_CODES } from 'axios-resilience';",
  parseRetryAfter: "import { parseRetryAfter } from 'axios-resilience';",
  startFaultServer: "import { startFaultServer } from 'axios-resilience/testing';",
  createIdempotentResource: "import { createIdempotentResource } from 'axios-resilience/testing';",
  nockRoute: "import { nockRoute } from 'axios-resilience/testing';",
  gapsMs: "import { gapsMs } from 'axios-resilience/testing';",
  // Placeholders the prose introduces: an instance, a plugin, a request body, your logger.
  http: "declare const http: import('axios').AxiosInstance;",
  plugin: "declare const plugin: import('axios-resilience').RetryPlugin;",
  server: "declare const server: import('axios-resilience/testing').FaultServer;",
  payments: "declare const payments: import('axios-resilience/testing').IdempotentResource;",
  body: 'declare const body: Record<string, unknown>;',
  item: 'declare const item: Record<string, unknown>;',
  order: 'declare const order: { id: string };',
  logger: "declare const logger: import('./pino.js').LogLike;",
  log: "declare const log: import('./pino.js').LogLike;",
  metrics: 'declare const metrics: { histogram(name: string, value: number, labels?: Record<string, string>): void };',
  progress: 'declare const progress: { update(text: string): void };',
  cachedItems: 'declare function cachedItems(): unknown;',
  // The "before" half of the migration guides.
  axiosRetry: "declare const axiosRetry: typeof import('axios-retry').default;",
  rax: "declare const rax: typeof import('retry-axios');",
};

/** Modules the guides import that this project does not install. */
const AMBIENT = `declare module 'pino' {
  interface Logger {
    info(fields: object, message: string): void;
    warn(fields: object, message: string): void;
    error(fields: object, message: string): void;
  }
  export default function pino(options?: object): Logger;
}
`;

function markdownFiles() {
  const inDir = (dir) =>
    readdirSync(join(root, dir))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => join(dir, name));
  return ['README.md', ...inDir('docs'), ...inDir('docs/guides')];
}

/** The ```ts blocks of one Markdown file, with the 1-based line of each block's first code line. */
function extract(file) {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks = [];
  const problems = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```\s*(ts|typescript)\s*$/.exec(lines[i]);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end])) end++;
    let before = i - 1;
    while (before >= 0 && lines[before].trim() === '') before--;
    const marker = before >= 0 ? /^<!--\s*snippet:\s*skip\b:?\s*(.*?)\s*-->$/.exec(lines[before].trim()) : null;
    if (marker && marker[1] === '') problems.push(`${file}:${before + 1} snippet: skip needs a reason`);
    const indent = open[1].length;
    const code = lines
      .slice(i + 1, end)
      .map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))
      .join('\n');
    blocks.push({ file, line: i + 2, code, skip: marker !== null });
    i = end;
  }
  return { blocks, problems };
}

/** `declare const x: T;`, `declare function f(): T;`, …: legal only at the top of a module. */
function isAmbient(statement) {
  return (
    ts.canHaveModifiers(statement) &&
    (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.DeclareKeyword)
  );
}

/**
 * Names the snippet declares at its top level, every identifier it mentions, and the 0-based
 * lines its imports and `declare` statements span (those are hoisted out of the function).
 */
function names(code) {
  const source = ts.createSourceFile('snippet.mts', code, ts.ScriptTarget.Latest, true);
  const declared = new Set();
  const used = new Set();
  const hoistedLines = new Set();
  const bind = (name) => {
    if (ts.isIdentifier(name)) declared.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name);
  };
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) for (const d of statement.declarationList.declarations) bind(d.name);
    else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name) {
      declared.add(statement.name.text);
    }
    if (ts.isImportDeclaration(statement) || isAmbient(statement)) {
      const first = source.getLineAndCharacterOfPosition(statement.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(statement.getEnd()).line;
      for (let line = first; line <= last; line++) hoistedLines.add(line);
    }
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (!clause) continue;
      if (clause.name) declared.add(clause.name.text);
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) declared.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) declared.add(el.name.text);
    }
  }
  const visit = (node) => {
    if (ts.isIdentifier(node)) used.add(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { declared, used, hoistedLines };
}

function recipe(name) {
  const text = readFileSync(join(root, 'examples/observability', `${name}.ts`), 'utf8');
  return text.replaceAll("from '../../lib'", "from 'axios-resilience'");
}

function main() {
  if (!existsSync(join(root, 'dist/index.d.mts')) || !existsSync(join(root, 'dist/index.d.cts'))) {
    console.error('snippets: dist/ has no type declarations; run `npm run build` first');
    process.exit(1);
  }
  const problems = [];
  const blocks = [];
  for (const file of markdownFiles()) {
    const found = extract(file);
    blocks.push(...found.blocks);
    problems.push(...found.problems);
  }

  const dir = mkdtempSync(join(tmpdir(), 'axios-resilience-snippets-'));
  try {
    // node_modules: this repository as axios-resilience, and everything it has installed.
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(root, join(dir, 'node_modules/axios-resilience'), 'dir');
    for (const entry of readdirSync(join(root, 'node_modules'))) {
      if (entry.startsWith('.') || entry === 'axios-resilience') continue;
      symlinkSync(join(root, 'node_modules', entry), join(dir, 'node_modules', entry), 'dir');
    }
    writeFileSync(join(dir, 'ambient.d.ts'), AMBIENT);
    writeFileSync(join(dir, 'otel.ts'), recipe('otel'));
    writeFileSync(join(dir, 'pino.ts'), recipe('pino'));

    const files = new Map();
    const checked = blocks.filter((block) => !block.skip);
    checked.forEach((block, n) => {
      const { declared, used, hoistedLines } = names(block.code);
      const preamble = Object.entries(PREAMBLE)
        .filter(([name]) => used.has(name) && !declared.has(name))
        .map(([, declaration]) => declaration);
      // Line 1 opens the function; snippet line n is file line n + 1, its hoisted lines left blank
      // there and repeated after the function, with the preamble.
      const lines = block.code.split('\n');
      const body = lines.map((line, i) => (hoistedLines.has(i) ? '' : line));
      const imports = lines.filter((_, i) => hoistedLines.has(i));
      const text = ['export async function snippet() {', ...body, '}', ...imports, ...preamble, ''].join('\n');
      for (const [format, ext] of [
        ['esm', 'mts'],
        ['cjs', 'cts'],
      ]) {
        const path = join(dir, `snippet-${String(n + 1).padStart(3, '0')}.${ext}`);
        writeFileSync(path, text);
        files.set(path, { block, format, codeLines: lines.length, hoistedLines: [...hoistedLines] });
      }
    });

    const options = {
      strict: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      moduleDetection: ts.ModuleDetectionKind.Force,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts'],
      types: ['node', 'jest'],
      skipLibCheck: true,
      noEmit: true,
    };
    const program = ts.createProgram([join(dir, 'ambient.d.ts'), ...files.keys()], options);
    const diagnostics = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
    for (const source of program.getSourceFiles()) {
      if (files.has(source.fileName) || source.fileName.startsWith(`${dir}/`)) {
        diagnostics.push(...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source));
      }
    }
    for (const d of diagnostics) {
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n    ');
      const snippet = d.file ? files.get(d.file.fileName) : undefined;
      if (!d.file) {
        problems.push(`TS${d.code}: ${message}`);
        continue;
      }
      const { line, character } = d.file.getLineAndCharacterOfPosition(d.start ?? 0);
      if (!snippet) {
        problems.push(`${relative(dir, d.file.fileName)}:${line + 1}:${character + 1} TS${d.code}: ${message}`);
        continue;
      }
      // Body lines map one to one; an error in a hoisted line is reported at that line.
      let where = snippet.block.line - 1;
      if (line >= 1 && line <= snippet.codeLines) where = snippet.block.line + line - 1;
      const hoisted = line - snippet.codeLines - 2;
      if (hoisted >= 0 && hoisted < snippet.hoistedLines.length)
        where = snippet.block.line + snippet.hoistedLines[hoisted];
      problems.push(`${snippet.block.file}:${where}:${character + 1} (${snippet.format}) TS${d.code}: ${message}`);
    }

    const skipped = blocks.length - checked.length;
    if (problems.length > 0) {
      console.error(`snippets: ${problems.length} problem(s) in ${blocks.length} TypeScript blocks:`);
      for (const p of [...new Set(problems)].sort(byFileAndLine)) console.error(`  ${p}`);
      process.exitCode = 1;
    } else {
      console.log(
        `snippets: ${checked.length} TypeScript blocks compile as ESM and as CommonJS (nodenext)` +
          (skipped > 0 ? `; ${skipped} marked skip` : ''),
      );
    }
  } finally {
    if (!process.env.KEEP_SNIPPETS) rmSync(dir, { recursive: true, force: true });
    else console.error(`snippets: kept ${dir}`);
  }
}

function byFileAndLine(a, b) {
  const [fa, la] = a.split(':');
  const [fb, lb] = b.split(':');
  return fa === fb ? Number(la) - Number(lb) : fa < fb ? -1 : 1;
}

main();
