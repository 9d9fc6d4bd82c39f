import { DEFAULT_ERROR_CODES, DEFAULT_STATUS_CODES } from './defaults';
import { editDistance } from './suggest';
import { fail, own } from './validate';

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
  if (!Array.isArray(value)) fail(where, 'statusCodes', 'E18', value);
  value.forEach((status: unknown, i) => {
    if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) {
      fail(where, `statusCodes[${i}]`, 'E19', status);
    }
  });
  return value as number[];
}

/**
 * How `errorCodes` is read. Codes are compared in upper case: Node writes `ECONNRESET`, and
 * `econnreset` means the same. Errno-style codes (`E` and letters, or getaddrinfo's `EAI_…`) are a
 * closed set, so one not known is refused: a typo (`ECONNREFUSD`) or a code no HTTP call ends in
 * would silently retry nothing. Known: the defaults, and below the rarer codes a socket, a TLS
 * handshake (`EPROTO`) or a DNS lookup can end in. Any other code is taken as written, because those
 * names are open: Node's and axios's `ERR_…` (Node alone has hundreds), undici's `UND_ERR_…`,
 * OpenSSL's (`CERT_HAS_EXPIRED`), and a custom adapter's own (`MY_ADAPTER_DOWN`: the plugin cannot
 * know an adapter's codes, and refusing them would leave `shouldRetry` the only way to retry that
 * adapter's failures). Only a near miss of a known code there (`ERR_NETWROK`) is refused.
 */
const MORE_CODES = [
  'ENETRESET',
  'ENOTCONN',
  'EADDRINUSE',
  'EADDRNOTAVAIL',
  'EPROTO',
  'EAI_FAIL',
  'EMFILE',
  'ENFILE',
  'ENOBUFS',
];
const KNOWN_CODES = [...DEFAULT_ERROR_CODES, ...MORE_CODES];
const ERRNO = /^E(AI_)?[A-Z]+$/;

/** The known code one edit from `code` (two for a code of 8 characters or more), if any. */
function nearCode(code: string): string | undefined {
  let best: string | undefined;
  let bestDistance = code.length < 8 ? 2 : 3;
  for (const known of KNOWN_CODES) {
    const distance = editDistance(code, known);
    if (distance < bestDistance) {
      best = known;
      bestDistance = distance;
    }
  }
  return best;
}

/** Error codes that may be retried: the `code` strings of network errors, in upper case. */
function codeList(where: string, value: unknown): string[] {
  if (!Array.isArray(value)) fail(where, 'errorCodes', 'E20', value);
  return value.map((entry: unknown, i) => {
    const code = typeof entry === 'string' ? entry.toUpperCase() : '';
    const field = `errorCodes[${i}]`;
    if (!/^[A-Z][A-Z0-9_]*$/.test(code)) fail(where, field, 'E21', entry);
    if (KNOWN_CODES.includes(code)) return code;
    const near = nearCode(code);
    if (near !== undefined || ERRNO.test(code)) {
      fail(
        where,
        field,
        'E22',
        entry,
        near,
        KNOWN_CODES.filter((known) => ERRNO.test(known)),
      );
    }
    return code;
  });
}
