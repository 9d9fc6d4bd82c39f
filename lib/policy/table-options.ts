import { DEFAULT_ERROR_CODES, DEFAULT_STATUS_CODES } from './defaults';
import { fail, given, own, typed } from './validate';

/** statusCodes and errorCodes: the rows of the decision table a user may change. */
export function resolveTables(
  where: string,
  input: Record<string, unknown>,
  base: { statusCodes: ReadonlySet<number>; errorCodes: ReadonlySet<string> } | undefined,
) {
  const statusValue = own(input, 'statusCodes');
  let statusCodes = base?.statusCodes ?? new Set(DEFAULT_STATUS_CODES);
  if (statusValue !== undefined) statusCodes = new Set(statusList(where, statusValue));
  const codesValue = own(input, 'errorCodes');
  let errorCodes = base?.errorCodes ?? new Set(DEFAULT_ERROR_CODES);
  if (codesValue !== undefined) errorCodes = new Set(codeList(where, codesValue));
  return { statusCodes, errorCodes };
}

/**
 * Statuses that may be retried: failures only. axios resolves a 2xx, and follows or resolves a 3xx,
 * so listing one would do nothing; it is refused rather than silently ignored.
 */
function statusList(where: string, value: unknown): number[] {
  const allowed = 'HTTP error statuses (400-599) such as [429, 503]';
  if (!Array.isArray(value)) fail(where, 'statusCodes', `must be an array of ${allowed}, got ${typed(value)}`);
  value.forEach((status: unknown, i) => {
    if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) {
      fail(where, `statusCodes[${i}]`, `must be an HTTP error status (400-599), got ${given(status, 'number')}`);
    }
    if (status < 400) {
      const why = 'a 1xx, 2xx or 3xx answer is not a failure, so it is never retried';
      fail(where, `statusCodes[${i}]`, `must be an HTTP error status (400-599), got ${status} (${why})`);
    }
  });
  return value as number[];
}

/** Error codes that may be retried: the `code` strings of network errors. */
function codeList(where: string, value: unknown): string[] {
  if (!Array.isArray(value)) {
    fail(where, 'errorCodes', `must be an array of error codes such as ["ECONNRESET"], got ${typed(value)}`);
  }
  value.forEach((code: unknown, i) => {
    if (typeof code === 'string' && code !== '') return;
    const hint = typeof code === 'number' ? ' (statuses go in statusCodes)' : '';
    fail(where, `errorCodes[${i}]`, `must be an error code string such as "ECONNRESET", got ${typed(code)}${hint}`);
  });
  return value as string[];
}
