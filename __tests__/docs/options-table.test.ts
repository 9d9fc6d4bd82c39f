/**
 * The README's options table and the code's options, held together: every field of
 * `RetryPluginOptions` (read from lib/types/options.ts) has a row, every row is a field, and the
 * plugin knows exactly those names at runtime (its "not a known option" error lists them). The
 * sentence above the table that names the options a request cannot set is held to what a request
 * is refused. The table once lacked `rateLimitHeaders`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import axios from 'axios';
import { retryPlugin } from '../../lib';

const ROOT = join(__dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const OPTIONS_SECTION = README.slice(
  README.indexOf('\n## Options\n'),
  README.indexOf('\n## ', README.indexOf('\n## Options\n') + 1),
);

/** The first column of the options table: the option names, in order. */
function tableNames(): string[] {
  return OPTIONS_SECTION.split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => /^\| `([A-Za-z]+)`/.exec(line)![1]!);
}

/** The fields of `RetryPluginOptions`, as its source declares them. */
function interfaceFields(): string[] {
  const source = readFileSync(join(ROOT, 'lib/types/options.ts'), 'utf8');
  const start = source.indexOf('export interface RetryPluginOptions {');
  const body = source.slice(start, source.indexOf('\n}\n', start));
  return [...body.matchAll(/^ {2}([A-Za-z]+)\??:/gm)].map((m) => m[1]!);
}

/** The names the plugin accepts, as its error for an unknown one lists them. */
function knownAtRuntime(): string[] {
  try {
    retryPlugin({ colour: 'red' } as never);
  } catch (error) {
    return /known: (.*)$/.exec((error as Error).message)![1]!.split(', ');
  }
  throw new Error('an unknown option was accepted');
}

const sorted = (names: string[]): string[] => [...names].sort();

test('the table is there, one row per option', () => {
  expect(tableNames().length).toBeGreaterThanOrEqual(25);
  expect(new Set(tableNames()).size).toBe(tableNames().length);
});

test('every field of RetryPluginOptions has a row, and every row is a field', () => {
  expect(sorted(tableNames())).toEqual(sorted(interfaceFields()));
});

test('the plugin knows exactly those names (and a request’s body factory, `body`)', () => {
  expect(sorted(knownAtRuntime())).toEqual(sorted([...interfaceFields(), 'body']));
});

test('the options the README says a request cannot set are those a request is refused', async () => {
  const sentence = /Every option is optional; all but ([^]*?) can also be set per request/.exec(OPTIONS_SECTION)![1]!;
  const pluginOnly = [...sentence.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]!);
  const plugin = retryPlugin();
  const http = axios.create({
    adapter: async (config) => ({ status: 200, statusText: '', headers: {}, config, data: '' }),
  });
  plugin.install(http);
  const refused: string[] = [];
  try {
    for (const name of interfaceFields()) {
      const error = await http.get('http://api.test/', { retry: { [name]: undefined } as never }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      if (error !== undefined) refused.push(name);
    }
  } finally {
    await plugin.close();
  }
  // `chaos` is named there too: a request may only turn it off (`chaos: false`), not set faults.
  expect(sorted(pluginOnly)).toEqual(sorted([...refused, 'chaos']));
});

/** The string members of a union type `name` declared in `file`. */
function unionMembers(file: string, name: string): string[] {
  const source = readFileSync(join(ROOT, file), 'utf8');
  const declared = new RegExp(`export type ${name} =([^;]*);`).exec(source)![1]!;
  return [...declared.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
}

test('the observability guide lists every delay_source the metric records', () => {
  const guide = readFileSync(join(ROOT, 'docs/guides/observability.md'), 'utf8');
  const row = guide.split('\n').find((line) => line.startsWith('| `axios_resilience.retry.delay`'))!;
  const listed = [.../`delay_source` is ([^|]*)/.exec(row)![1]!.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]!);
  expect(sorted(listed)).toEqual(sorted(unionMembers('lib/engine/plan.ts', 'DelaySource')));
});

test('the onRateLimit row names every field of its event', () => {
  const source = readFileSync(join(ROOT, 'lib/types/guards.ts'), 'utf8');
  const start = source.indexOf('export interface RateLimitEvent {');
  const fields = [...source.slice(start, source.indexOf('\n}\n', start)).matchAll(/^ {2}([A-Za-z]+)\??:/gm)].map(
    (m) => m[1]!,
  );
  const row = OPTIONS_SECTION.split('\n').find((line) => line.startsWith('| `onRateLimit`'))!;
  for (const field of fields) expect([field, row.includes(field)]).toEqual([field, true]);
});
