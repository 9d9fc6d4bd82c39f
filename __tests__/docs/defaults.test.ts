/**
 * One defaults object (lib/policy/defaults.ts), and two places a user reads defaults from: the
 * README's options table and the `@default` text of the public types (TypeDoc, editors' hovers).
 * Each must say what the object says, field by field.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULTS } from '../../lib/policy/defaults';

const ROOT = join(__dirname, '../..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** A default as both places write it in code font. */
function literal(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  return String(value);
}

/** What a text must contain to state `value`: one literal, or each `field: literal` of an object. */
function claims(value: unknown): string[] {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return Object.entries(value).map(([field, v]) => `${field}: ${literal(v)}`);
  }
  return [literal(value)];
}

/** Numbers the text gives for an object's fields, so a wrong or stale one is caught too. */
function statedNumbers(text: string): Array<[string, string]> {
  return [...text.matchAll(/(\w+): (-?[\d.]+)\b/g)].map((m) => [m[1]!, m[2]!]);
}

function agrees(text: string, value: unknown): void {
  const plain = text.replace(/(\d)_(\d)/g, '$1$2');
  if (Array.isArray(value) && typeof value[0] === 'string' && !plain.includes('[')) {
    // The README lists the error codes bare, in a row: the same codes, none missing, none extra.
    expect(new Set(plain.match(/[A-Z][A-Z_]{3,}/g))).toEqual(new Set(value));
    return;
  }
  for (const claim of claims(value)) expect(plain).toContain(claim);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [field, number] of statedNumbers(plain)) {
      if (Object.hasOwn(value, field))
        expect(`${field}: ${number}`).toBe(`${field}: ${literal((value as Record<string, unknown>)[field])}`);
    }
  }
}

/** The options a user sets whose defaults live in the object. */
const OPTIONS = [
  'retries',
  'baseDelayMs',
  'maxDelayMs',
  'jitter',
  'statusCodes',
  'errorCodes',
  'idempotencyKey',
  'retryAfter',
  'unsafeRetryWrites',
  'budget',
  'breaker',
  'rateLimit',
  'hedge',
  'attemptHeader',
] as const;

describe("the README's options table", () => {
  const rows = new Map(
    read('README.md')
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => line.split('|').map((cell) => cell.trim()))
      .map((cells) => [cells[1]!.replace(/`/g, ''), cells[2]!] as const),
  );
  test.each(OPTIONS)('%s', (option) => {
    expect(rows.has(option)).toBe(true);
    agrees(rows.get(option)!, DEFAULTS[option]);
  });
});

/** The `@default` line of each property in an interface's source, by property name. */
function documentedDefaults(source: string, name: string): Map<string, string> {
  const start = source.indexOf(`export interface ${name} `);
  expect(start).toBeGreaterThanOrEqual(0);
  const body = source.slice(start, source.indexOf('\n}\n', start));
  const found = new Map<string, string>();
  for (const m of body.matchAll(/@default ([^\n]*)\n(?:\s*\*[^\n]*\n)*?\s*\*\/\n\s*(\w+)\??:/g))
    found.set(m[2]!, m[1]!);
  return found;
}

describe('the @default text of the public types', () => {
  const options = read('lib/types/options.ts');
  const plugin = documentedDefaults(options, 'RetryPluginOptions');
  test.each(OPTIONS)('RetryPluginOptions.%s', (option) => {
    expect(plugin.has(option)).toBe(true);
    agrees(plugin.get(option)!, DEFAULTS[option]);
  });

  const parts = read('lib/types/part-options.ts');
  test.each([
    ['BreakerOptions', parts, DEFAULTS.breaker],
    ['HedgeOptions', parts, DEFAULTS.hedgeFields],
    ['RateLimitOptions', parts, DEFAULTS.rateLimit],
    ['IdempotencyKeyOptions', parts, DEFAULTS.idempotencyKey],
    [
      'RetryBudgetOptions',
      read('lib/guards/budget.ts'),
      { ...DEFAULTS.budget, ...DEFAULTS.budgetStore, maxOrigins: undefined },
    ],
  ])('each field of %s', (name, source, defaults) => {
    const documented = documentedDefaults(source, name);
    for (const [field, value] of Object.entries(defaults)) {
      if (value === undefined) continue;
      expect([field, documented.has(field)]).toEqual([field, true]);
      agrees(documented.get(field)!, value);
    }
  });
});
