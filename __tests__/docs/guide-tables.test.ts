/**
 * The guides' tables of values, read as a user reads them and held to the code: the Retry-After
 * guide's values against `parseRetryAfter`, and the decision table's cells against `classify`. A
 * table that drifts from the code (as the Retry-After guide once listed `1.5` as ignored) fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AxiosError, CanceledError } from 'axios';
import { parseRetryAfter } from '../../lib';
import { classify, readFailure } from '../../lib/policy/classify';
import { resolvePluginOptions } from '../../lib/policy/options';

function tableAfter(path: string, heading: string): string[][] {
  const text = readFileSync(join(__dirname, '../..', path), 'utf8');
  const lines = text.slice(text.indexOf(heading)).split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

const codes = (cell: string): string[] => [...cell.matchAll(/`([^`]*)`/g)].map((m) => m[1]!);

describe('docs/guides/retry-after.md, "What is understood"', () => {
  const rows = tableAfter('docs/guides/retry-after.md', '## What is understood');
  const NOW = Date.UTC(2026, 9, 21, 7, 27, 0);

  test('the table is there', () => expect(rows.length).toBeGreaterThanOrEqual(7));

  test.each(rows)('%s → %s', (values, wait) => {
    const given = codes(values);
    if (values.endsWith('empty')) given.push('');
    const ms = /^([\d ]+) ms/.exec(wait);
    for (const value of given) {
      const parsed = parseRetryAfter(value, NOW);
      if (ms) expect([value, parsed]).toEqual([value, Number(ms[1]!.replace(/ /g, ''))]);
      else if (wait.startsWith('ignored')) expect([value, parsed]).toEqual([value, undefined]);
      else if (wait.startsWith('falls back')) expect([value, parsed]).toEqual([value, 0]);
      // "until that instant", "the same": 07:28:00 on 21 October 2026, a minute after NOW.
      else expect([value, parsed]).toEqual([value, 60_000]);
    }
    if (values.startsWith('a date in the past')) expect(parseRetryAfter('Wed, 21 Oct 2026 07:00:00 GMT', NOW)).toBe(0);
  });
});

describe('docs/guides/decision-table.md, the table', () => {
  const options = resolvePluginOptions(undefined).call;
  const response = (status: number, accept = false) =>
    new AxiosError(
      'failed',
      'ERR_BAD_RESPONSE',
      { validateStatus: () => accept } as never,
      {},
      {
        status,
        statusText: '',
        headers: {},
        config: {} as never,
        data: '',
      },
    );
  const code = (name: string) => new AxiosError('failed', name);
  /** Failures a user would meet for each row, in the table's order. */
  const examples: unknown[][] = [
    [response(408), response(429)],
    [response(502), response(503), response(504)],
    [response(409)],
    [400, 401, 403, 404, 422, 500].map((s) => response(s)),
    ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].map(code),
    ['ECONNRESET', 'ETIMEDOUT', 'ECONNABORTED'].map(code),
    [Object.assign(new Error('socket went away'), { config: {} })],
    [response(200, true)],
    [code('ERR_BAD_OPTION')],
    [new CanceledError()],
  ];
  const rows = tableAfter('docs/guides/decision-table.md', '| failure of one attempt');

  /** What a cell says for a call with or without a key: retry, or the stop reason. */
  function expected(cell: string, keyed: boolean): string {
    if (cell.startsWith('retry only if the call carries a key')) return keyed ? 'retry' : 'not-retryable';
    if (cell.startsWith('retry')) return 'retry';
    const [withKey, without] = codes(cell);
    return cell.includes('with a key, else') && !keyed ? without! : withKey!;
  }

  test('a row of examples for every row of the table', () => expect(rows).toHaveLength(examples.length));

  test.each(rows.map((row, i) => [row[0]!, row, examples[i]!] as const))('%s', (_name, row, errors) => {
    const [, idempotent, deduped, undeclared] = row as [string, string, string, string];
    const decide = (error: unknown, method: string, keyed: boolean, isDeduped: boolean): string => {
      const decision = classify({ method, keyed, deduped: isDeduped }, readFailure(error, options));
      return decision.retry ? 'retry' : decision.stopReason;
    };
    for (const error of errors) {
      for (const method of ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']) {
        expect(decide(error, method, false, false)).toBe(expected(idempotent, false));
        expect(decide(error, method, true, true)).toBe(expected(idempotent, true));
      }
      for (const method of ['POST', 'PATCH']) {
        expect(decide(error, method, true, true)).toBe(expected(deduped, true));
        expect(decide(error, method, true, false)).toBe(expected(undeclared, true));
        expect(decide(error, method, false, false)).toBe(expected(undeclared, false));
      }
    }
  });
});
