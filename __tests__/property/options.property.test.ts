/**
 * Option resolution over arbitrary objects: either a valid resolved options object or a TypeError
 * whose message names the wrong field; `__proto__` / `constructor` / `prototype` keys never
 * pollute a prototype, whether given to retryPlugin() or in a per-request `retry` object.
 */
import axios from 'axios';
import type { AxiosResponse } from 'axios';
import fc from 'fast-check';
import { RetryBudget, retryPlugin } from '../../lib';
import { MAX_TIMER_MS, resolvePluginOptions, resolveRequestOptions } from '../../lib/policy/options';
import type { ResolvedOptions } from '../../lib/policy/options';

const CALL_FIELDS = [
  'retries',
  'baseDelayMs',
  'maxDelayMs',
  'jitter',
  'statusCodes',
  'errorCodes',
  'idempotencyKey',
  'retryAfter',
  'deadlineMs',
  'onRetry',
  'onGiveUp',
  'random',
  'attemptHeader',
] as const;
const PLUGIN_FIELDS = [...CALL_FIELDS, 'budget', 'breaker', 'onCircuitStateChange', 'now'] as const;
const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];

/** Mostly values a user would write, sometimes junk, so both outcomes are reached. */
const either = (valid: fc.Arbitrary<unknown>, junk: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 12, arbitrary: valid }, { weight: 1, arbitrary: junk });

const valueFor: Record<string, fc.Arbitrary<unknown>> = {
  retries: either(fc.nat(10), fc.oneof(fc.integer({ min: -3, max: -1 }), fc.double(), fc.anything())),
  baseDelayMs: either(fc.nat(1000), fc.oneof(fc.double({ min: -10, max: 1e6 }), fc.anything())),
  maxDelayMs: either(
    fc.integer({ min: 1000, max: 60_000 }),
    fc.oneof(fc.double({ min: -10, max: 2 * MAX_TIMER_MS }), fc.anything()),
  ),
  jitter: either(fc.constantFrom('full', 'equal', 'decorrelated', 'none'), fc.constantFrom('FULL', 'random', '', 0)),
  statusCodes: either(
    fc.array(fc.integer({ min: 400, max: 599 })),
    fc.array(fc.integer({ min: -1, max: 1000 }), { minLength: 1 }),
  ),
  errorCodes: either(fc.array(fc.constantFrom('ECONNRESET', 'ETIMEDOUT')), fc.array(fc.anything(), { minLength: 1 })),
  idempotencyKey: either(
    fc.oneof(
      fc.constant(false),
      fc.record(
        {
          header: fc.constantFrom('Idempotency-Key', 'X-Request-Id'),
          methods: fc.array(fc.constantFrom('post', 'PATCH', 'put')),
          generate: fc.constant(() => 'k'),
        },
        { requiredKeys: [] },
      ),
    ),
    fc.oneof(
      fc.record({ header: fc.string(), methods: fc.anything(), generate: fc.anything() }, { requiredKeys: [] }),
      fc.string(),
      fc.anything(),
    ),
  ),
  retryAfter: either(fc.constantFrom('clamp', 'fail'), fc.constantFrom('ignore', 1, null)),
  deadlineMs: either(fc.integer({ min: 1, max: 100_000 }), fc.oneof(fc.double({ min: -1, max: 1e9 }), fc.anything())),
  onRetry: either(
    fc.constant(() => undefined),
    fc.anything(),
  ),
  onGiveUp: either(
    fc.constant(() => undefined),
    fc.anything(),
  ),
  random: either(fc.constant(Math.random), fc.anything()),
  attemptHeader: either(fc.constantFrom(true, false, 'X-Attempt'), fc.oneof(fc.constant('Bad Header'), fc.anything())),
  budget: either(
    fc.oneof(
      fc.constant(false),
      fc.constant(new RetryBudget()),
      fc.record(
        {
          ratio: fc.double({ min: 0, max: 2, noNaN: true }),
          windowMs: fc.integer({ min: 1, max: 1e5 }),
          maxOrigins: fc.integer({ min: 1, max: 5000 }),
        },
        { requiredKeys: [] },
      ),
    ),
    fc.record(
      {
        ratio: fc.double({ min: -1, max: 2 }),
        minPerSecond: fc.anything(),
        windowMs: fc.double({ min: -1, max: 1e5 }),
        maxOrigins: fc.integer({ min: -1, max: 5000 }),
        other: fc.nat(),
      },
      { requiredKeys: [] },
    ),
  ),
  breaker: either(
    fc.oneof(
      fc.constant(false),
      fc.record(
        { volumeThreshold: fc.nat(50), resetTimeout: fc.nat(1e5), maxOrigins: fc.integer({ min: 1, max: 5000 }) },
        { requiredKeys: [] },
      ),
    ),
    fc.record(
      {
        volumeThreshold: fc.integer({ min: -1, max: 50 }),
        resetTimeout: fc.anything(),
        maxOrigins: fc.integer({ min: -1, max: 5000 }),
        rollingCountBuckets: fc.integer({ min: -1, max: 20 }),
      },
      { requiredKeys: [] },
    ),
  ),
  onCircuitStateChange: either(
    fc.constant(() => undefined),
    fc.anything(),
  ),
  now: either(fc.constant(Date.now), fc.anything()),
};

/**
 * An object with some known fields (good or bad values) and sometimes unknown or hostile keys.
 * Call `.build()` inside the property: the object is made there with own properties, as
 * JSON.parse makes them (a `__proto__` passed through an arbitrary's value can turn into a
 * prototype on the way, which is not the input under test).
 */
function optionsObject(fields: readonly string[]): fc.Arbitrary<{ build(): Record<string, unknown> }> {
  const known = fc.record(Object.fromEntries(fields.map((f) => [f, valueFor[f]!])), { requiredKeys: [] });
  const extra = fc.oneof(
    { weight: 6, arbitrary: fc.constant<Array<[string, unknown]>>([]) },
    { weight: 1, arbitrary: fc.array(fc.tuple(fc.string(), fc.anything()), { maxLength: 2 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...HOSTILE_KEYS).map((k): Array<[string, unknown]> => [[k, { polluted: true }]]),
    },
  );
  return fc.tuple(known, extra).map(([a, b]) => ({
    build() {
      const input: Record<string, unknown> = {};
      for (const [key, value] of [...Object.entries(a), ...b]) {
        Object.defineProperty(input, key, { value, enumerable: true, writable: true, configurable: true });
      }
      return input;
    },
    toString: () => JSON.stringify([Object.keys(a), b.map(([k]) => k)]),
  }));
}

/** The message names a field the input had, or an entry of it (`statusCodes[0]`). */
function namesAField(error: unknown, input: Record<string, unknown>, where: string): boolean {
  if (!(error instanceof TypeError)) return false;
  return Object.keys(input).some((field) => {
    const prefix = `axios-resilience: ${where}${field}`;
    return error.message.startsWith(prefix) && /^[ .([]/.test(error.message.slice(prefix.length));
  });
}

function expectValidCall(o: ResolvedOptions): void {
  expect(Number.isSafeInteger(o.retries) && o.retries >= 0).toBe(true);
  // A base above the cap is valid: every wait is min(maxDelayMs, base × 2^n), so capped.
  expect(o.baseDelayMs >= 0 && o.maxDelayMs >= 0 && o.maxDelayMs <= MAX_TIMER_MS).toBe(true);
  expect(['full', 'equal', 'decorrelated', 'none']).toContain(o.jitter);
  for (const s of o.statusCodes) expect(Number.isInteger(s) && s >= 400 && s <= 599).toBe(true);
  for (const c of o.errorCodes) expect(typeof c).toBe('string');
  if (o.idempotencyKey !== false) {
    expect(o.idempotencyKey.header).toMatch(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/);
    expect(['function', 'undefined']).toContain(typeof o.idempotencyKey.generate); // undefined: the built-in uuid
    for (const m of o.idempotencyKey.methods) expect(m).toBe(m.toUpperCase());
  }
  expect(['clamp', 'fail']).toContain(o.retryAfter);
  if (o.deadlineMs !== undefined) expect(Number.isFinite(o.deadlineMs) && o.deadlineMs > 0).toBe(true);
  expect(typeof o.random).toBe('function');
  for (const hook of [o.onRetry, o.onGiveUp]) if (hook !== undefined) expect(typeof hook).toBe('function');
}

function expectNoPollution(): void {
  for (const proto of [Object.prototype, Function.prototype, Array.prototype]) {
    expect((proto as Record<string, unknown>).polluted).toBeUndefined();
  }
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

afterEach(expectNoPollution);

test('retryPlugin options: a valid result or a TypeError naming the field', () => {
  let valid = 0;
  let refused = 0;
  fc.assert(
    fc.property(optionsObject(PLUGIN_FIELDS), (generated) => {
      const input = generated.build();
      let resolved: ReturnType<typeof resolvePluginOptions> | undefined;
      try {
        resolved = resolvePluginOptions(input);
      } catch (error) {
        refused++;
        expect(namesAField(error, input, '') ? true : [String(error), Object.keys(input)]).toBe(true);
        expectNoPollution();
        return;
      }
      valid++;
      expectValidCall(resolved.call);
      const { budget, breaker } = resolved;
      if (budget !== false && 'perOrigin' in budget) {
        const perOrigin = budget.perOrigin;
        expect(Number.isSafeInteger(perOrigin.maxOrigins) && perOrigin.maxOrigins >= 1).toBe(true);
        expect(perOrigin.windowMs > 0 && perOrigin.ratio >= 0 && perOrigin.minPerSecond >= 0).toBe(true);
      }
      if (breaker !== false) expect(Number.isSafeInteger(breaker.maxOrigins) && breaker.maxOrigins >= 1).toBe(true);
      expect(typeof resolved.now).toBe('function');
      expectNoPollution();
    }),
    { numRuns: 3000 },
  );
  // The generators reach both outcomes, or this test would prove little.
  expect(valid).toBeGreaterThan(50);
  expect(refused).toBeGreaterThan(50);
});

test('per-request retry objects: a valid result or a TypeError naming config.retry.<field>', () => {
  const base = resolvePluginOptions({}).call;
  let valid = 0;
  fc.assert(
    fc.property(optionsObject(CALL_FIELDS), (generated) => {
      const input = generated.build();
      let resolved: ResolvedOptions | false;
      try {
        resolved = resolveRequestOptions(input, base);
      } catch (error) {
        expect(namesAField(error, input, 'config.retry.') ? true : [String(error), Object.keys(input)]).toBe(true);
        return;
      }
      valid++;
      expect(resolved).not.toBe(false);
      expectValidCall(resolved as ResolvedOptions);
    }),
    { numRuns: 3000 },
  );
  expect(valid).toBeGreaterThan(50);
});

test('anything that is not an object or false is refused as a whole', () => {
  const base = resolvePluginOptions({}).call;
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.integer(),
        fc.array(fc.anything()),
        fc.constant(new Date()),
        fc.constant(() => 1),
      ),
      (value) => {
        expect(() => resolvePluginOptions(value as never)).toThrow(
          /^axios-resilience: options must be an object, got /,
        );
        expect(() => resolveRequestOptions(value, base)).toThrow(
          /^axios-resilience: config\.retry must be false or an options object, got /,
        );
      },
    ),
  );
});

describe('prototype pollution', () => {
  const payloads = HOSTILE_KEYS.slice(0, 3).flatMap((key) => [
    `{"${key}": {"polluted": true}}`,
    `{"retries": 1, "${key}": {"polluted": true}}`,
    `{"idempotencyKey": {"${key}": {"polluted": true}}}`,
  ]);

  // axios's mergeConfig already drops these keys from config.retry; if one ever got through, the
  // plugin must refuse it. Either way: no prototype touched, and no hostile key acted on.
  test.each(payloads)('per-request retry %s from JSON through axios: no prototype touched', async (json) => {
    const sent: unknown[] = [];
    const client = axios.create({
      adapter: (config) => {
        sent.push(config);
        return Promise.resolve({ data: '', status: 200, statusText: 'OK', headers: {}, config } as AxiosResponse);
      },
    });
    const plugin = retryPlugin();
    plugin.install(client);
    try {
      const retry = JSON.parse(json) as Record<string, unknown>;
      const outcome = await client.post('http://api.test/x', {}, { retry }).then(
        (response) => response,
        (error: unknown) => error,
      );
      expectNoPollution();
      if (outcome instanceof TypeError) {
        expect(sent).toEqual([]);
      } else {
        const seen = (outcome as AxiosResponse).config.retry as Record<string, unknown>;
        const nested = (seen.idempotencyKey ?? {}) as Record<string, unknown>;
        for (const key of HOSTILE_KEYS.slice(0, 3)) {
          expect(Object.prototype.hasOwnProperty.call(seen, key)).toBe(false);
          expect(Object.prototype.hasOwnProperty.call(nested, key)).toBe(false);
        }
      }
    } finally {
      await plugin.close();
    }
  });

  test.each(payloads)('resolveRequestOptions(%s) straight from JSON: TypeError, no prototype touched', (json) => {
    const base = resolvePluginOptions({}).call;
    expect(() => resolveRequestOptions(JSON.parse(json), base)).toThrow(TypeError);
    expectNoPollution();
  });

  test.each([
    ...payloads,
    '{"breaker": {"__proto__": {"polluted": true}}}',
    '{"breaker": {"constructor": {"polluted": true}}}',
    '{"budget": {"__proto__": {"polluted": true}}}',
  ])('retryPlugin(%s): TypeError, no prototype touched', (json) => {
    expect(() => retryPlugin(JSON.parse(json) as never)).toThrow(TypeError);
    expectNoPollution();
  });
});
