import { DEFAULT_ERROR_CODES, DEFAULT_STATUS_CODES } from './defaults';
import { nearestName } from './suggest';
import { fail, listOf, own } from './validate';

/** statusCodes and errorCodes: the rows of the decision table a user may change. */
export function resolveTables(
  where: string,
  input: Record<string, unknown>,
  base: { statusCodes: ReadonlySet<number>; errorCodes: ReadonlySet<string> } | undefined,
) {
  const statuses = own(input, 'statusCodes');
  const codes = own(input, 'errorCodes');
  return {
    statusCodes:
      statuses === undefined ? (base?.statusCodes ?? new Set(DEFAULT_STATUS_CODES)) : statusSet(where, statuses),
    errorCodes: codes === undefined ? (base?.errorCodes ?? new Set(DEFAULT_ERROR_CODES)) : codeSet(where, codes),
  };
}

/**
 * Statuses that may be retried: failures only. axios resolves a 2xx, and follows or resolves a 3xx,
 * so listing one would do nothing; it is refused rather than silently ignored.
 */
function statusSet(where: string, value: unknown): Set<number> {
  const statuses = listOf(where, 'statusCodes', value, 'E18', (status, field) => {
    if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) {
      fail(where, field, 'E19', status);
    }
    return status;
  });
  return new Set(statuses);
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

/** Error codes that may be retried: the `code` strings of network errors, in upper case. */
function codeSet(where: string, value: unknown): Set<string> {
  const codes = listOf(where, 'errorCodes', value, 'E20', (entry, field) => {
    const code = typeof entry === 'string' ? entry.toUpperCase() : '';
    if (!/^[A-Z][A-Z0-9_]*$/.test(code)) fail(where, field, 'E21', entry);
    if (KNOWN_CODES.includes(code)) return code;
    // A near miss is one edit from a known code (two for a code of 8 characters or more).
    const near = nearestName(code, KNOWN_CODES, code.length < 8 ? 1 : 2);
    if (near !== undefined || ERRNO.test(code)) fail(where, field, 'E22', entry, near, KNOWN_CODES, ERRNO);
    return code;
  });
  return new Set(codes);
}
