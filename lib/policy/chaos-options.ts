import { matchOf } from './chaos-match';
import type { FaultMatch } from './chaos-match';
import { chaosSetting } from './chaos-per-request';
import { DEFAULT_ERROR_CODES, MAX_TIMER_MS } from './defaults';
import { seededRandom } from './random';
import { fail, isPlainObject, optionsObject, own } from './validate';

/**
 * The `chaos` option, validated: each fault in one shape, and the source that chooses which
 * attempts get one (seeded when `seed` is given). The plugin's setting; a request can only turn it
 * off (`retry: { chaos: false }`).
 */

/**
 * The network codes a fault may inject: the retryable ones (`DEFAULT_ERROR_CODES`), each made as the
 * attempt's adapter makes it (`engine/chaos-outcome.ts`), but for two no adapter is asked to make: a
 * legacy request library's socket timeout, and undici's dropped socket (a reset over fetch gives it).
 */
export const CHAOS_ERROR_CODES: readonly string[] = DEFAULT_ERROR_CODES.filter(
  (code) => code !== 'ESOCKETTIMEDOUT' && code !== 'UND_ERR_SOCKET',
);

/** What a fault does to the attempt it is chosen for. */
export type FaultEffect =
  | { kind: 'status'; status: number; headers: Record<string, string>; body: unknown }
  | { kind: 'error'; code: string }
  | { kind: 'latency'; latencyMs: number };

/** One fault, validated. */
export interface ResolvedFault extends FaultMatch {
  /** Its index in `chaos.faults`, for the mark on what it injects. */
  index: number;
  rate: number;
  phase: 'before' | 'after';
  effect: FaultEffect;
}

/** The plugin's faults and the source that draws for them, in [0, 1). */
export interface ResolvedChaos {
  faults: readonly ResolvedFault[];
  draw: () => number;
}

/** A call's chaos setting, on its resolved options: `false` for none. */
export interface ChaosSetting {
  chaos: false | ResolvedChaos;
}

const CHAOS_FIELDS = new Set(['faults', 'seed', 'enabled']);
const FAULT_FIELDS = new Set(['rate', 'match', 'phase', 'status', 'headers', 'body', 'error', 'latencyMs']);
const KINDS = ['status', 'error', 'latencyMs'] as const;

function effectOf(field: string, fault: Record<string, unknown>): FaultEffect {
  const kinds = KINDS.filter((kind) => own(fault, kind) !== undefined);
  if (kinds.length !== 1) fail('', field, 'E51', kinds);
  const status = own(fault, 'status');
  const headers = own(fault, 'headers');
  const body = own(fault, 'body');
  if (status === undefined && (headers !== undefined || body !== undefined)) {
    fail('', `${field}.${headers === undefined ? 'body' : 'headers'}`, 'E52');
  }
  if (kinds[0] === 'status') {
    if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) {
      fail('', `${field}.status`, 'E53', status);
    }
    if (
      headers !== undefined &&
      (!isPlainObject(headers) || Object.values(headers).some((v) => typeof v !== 'string'))
    ) {
      fail('', `${field}.headers`, 'E54', headers);
    }
    return { kind: 'status', status, headers: { ...(headers as Record<string, string> | undefined) }, body };
  }
  if (kinds[0] === 'error') {
    const code = own(fault, 'error');
    if (typeof code !== 'string' || !CHAOS_ERROR_CODES.includes(code)) {
      fail('', `${field}.error`, 'E55', code, CHAOS_ERROR_CODES);
    }
    return { kind: 'error', code };
  }
  const latencyMs = own(fault, 'latencyMs');
  if (typeof latencyMs !== 'number' || !Number.isFinite(latencyMs) || latencyMs < 0 || latencyMs > MAX_TIMER_MS) {
    fail('', `${field}.latencyMs`, 'E56', latencyMs);
  }
  return { kind: 'latency', latencyMs };
}

function faultOf(value: unknown, index: number): ResolvedFault {
  const field = `chaos.faults[${index}]`;
  const fault = optionsObject('', field, value, FAULT_FIELDS, 'E57');
  const rate = own(fault, 'rate');
  if (typeof rate !== 'number' || !(rate >= 0 && rate <= 1)) {
    fail('', `${field}.rate`, 'E58', rate);
  }
  const phase = own(fault, 'phase') ?? 'before';
  if (phase !== 'before' && phase !== 'after') {
    fail('', `${field}.phase`, 'E59', phase);
  }
  return { index, rate, phase, ...matchOf(`${field}.match`, own(fault, 'match')), effect: effectOf(field, fault) };
}

/**
 * The call's chaos: from the plugin's `chaos` (`base` undefined) or a request's `retry.chaos`
 * over the plugin's. `false`: none. Throws a `TypeError` naming the wrong field.
 */
export function resolveChaos(
  where: string,
  value: unknown,
  base: false | ResolvedChaos | undefined,
): false | ResolvedChaos {
  return chaosSetting(where, value, base, (plugin) => pluginChaos(where, plugin));
}

function pluginChaos(where: string, value: unknown): false | ResolvedChaos {
  const input = optionsObject(where, 'chaos', value, CHAOS_FIELDS, 'E60');
  const faults = own(input, 'faults');
  if (!Array.isArray(faults)) fail(where, 'chaos.faults', 'E61', faults);
  const seed = own(input, 'seed');
  if (seed !== undefined && (typeof seed !== 'number' || !Number.isSafeInteger(seed))) {
    fail(where, 'chaos.seed', 'E62', seed);
  }
  const enabled = own(input, 'enabled') ?? true;
  if (typeof enabled !== 'boolean') fail(where, 'chaos.enabled', 'E63', enabled);
  const resolved = faults.map(faultOf);
  if (!enabled || resolved.length === 0) return false;
  return { faults: resolved, draw: seed === undefined ? Math.random : seededRandom(seed) };
}
