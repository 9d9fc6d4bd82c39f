/** Which limiter a scope's answers show: one that refills continuously (paced) or a fixed window (held). */
import { NO_EVIDENCE, WindowQuota, heard, pacedNotHeld } from '../../lib/guards/refill-evidence';
import type { QuotaWord } from '../../lib/guards/refill-evidence';

const T = 1_000_000;
/** Answers in order, each read 20 ms after it was sent. */
const after = (words: Array<Partial<QuotaWord> & { sentAt: number }>) =>
  words.reduce(
    (evidence, w) => heard(evidence, { ok: true, remaining: undefined, resetAt: undefined, at: w.sentAt + 20, ...w }),
    NO_EVIDENCE,
  );

test.each<[string, Array<Partial<QuotaWord> & { sentAt: number }>, boolean]>([
  ['a success that says nothing of a quota: it speaks only on its refusals', [{ sentAt: T }], true],
  [
    'a refusal with a spent quota, then a silent success',
    [{ sentAt: T, ok: false, remaining: 0, resetAt: T + 800 }, { sentAt: T + 900 }],
    true,
  ],
  ['a refusal alone says nothing yet', [{ sentAt: T, ok: false, remaining: 0, resetAt: T + 800 }], false],
  [
    'a remaining count that only falls until its reset: a fixed window',
    [5, 4, 3, 2, 1, 0].map((remaining, i) => ({ sentAt: T + i * 1000, remaining, resetAt: T + 60_000 })),
    false,
  ],
  [
    'a remaining count that grew by two, a minute before its reset: it refills',
    [
      { sentAt: T, remaining: 5, resetAt: T + 60_000 },
      { sentAt: T + 100, remaining: 3, resetAt: T + 60_000 },
      { sentAt: T + 5000, remaining: 5, resetAt: T + 60_000 },
    ],
    true,
  ],
  [
    'a rise of one may be answers out of order',
    [
      { sentAt: T, remaining: 3, resetAt: T + 60_000 },
      { sentAt: T + 10, remaining: 4, resetAt: T + 60_000 },
    ],
    false,
  ],
  [
    'an answer to a request sent earlier that reports more: out of order, not a refill',
    [
      { sentAt: T + 10, remaining: 3, resetAt: T + 60_000 },
      { sentAt: T, remaining: 9, resetAt: T + 60_000 },
    ],
    false,
  ],
  [
    'whole again at the reset: a new window, not a refill',
    [
      { sentAt: T, remaining: 0, resetAt: T + 1000 },
      { sentAt: T + 1000, remaining: 99, resetAt: T + 2000 },
    ],
    false,
  ],
  [
    'a rise within the second before a reset given in whole seconds proves nothing',
    [
      { sentAt: T, remaining: 0, resetAt: T + 1000 },
      { sentAt: T + 500, remaining: 50, resetAt: T + 1500 },
    ],
    false,
  ],
])('%s', (_name, words, refills) => {
  expect(after(words).refills).toBe(refills);
});

test('a refilling limiter paces a hold of a second or less; a longer one, or a fixed window, holds', () => {
  const bucket = after([{ sentAt: T }]);
  expect(pacedNotHeld(bucket, 1000)).toBe(true);
  expect(pacedNotHeld(bucket, 1001)).toBe(false);
  expect(pacedNotHeld(NO_EVIDENCE, 500)).toBe(false);
});

/** A window's rate, from the words of its answers in order (each read 20 ms after it was sent, `X-RateLimit-Limit: 100`). */
const windowRate = (words: Array<{ sentAt: number; remaining: number; resetAt: number }>) => {
  const quota = new WindowQuota();
  for (const w of words) quota.heard({ ok: true, limit: 100, at: w.sentAt + 20, ...w }, true);
  return quota.ratePerSecond;
};

/** `n` answers of the window ending at `resetAt`, from `from` on, 10 ms apart, counting down from `remaining`. */
const windowOf = (resetAt: number, from: number, remaining: number, n = 3) =>
  Array.from({ length: n }, (_, i) => ({ sentAt: from + i * 10, remaining: remaining - i, resetAt }));

test.each<[string, Array<{ sentAt: number; remaining: number; resetAt: number }>, number | undefined]>([
  ['one window says its size, not its length', windowOf(T + 1000, T, 99), undefined],
  [
    'two windows whose every answer states the same reset (an epoch second): 100 per 1 s',
    [...windowOf(T + 1000, T, 99), ...windowOf(T + 2000, T + 1000, 99)],
    100,
  ],
  [
    'a window that went unused steps the reset twice: the shortest step is the length',
    [...windowOf(T + 1000, T, 99), ...windowOf(T + 3000, T + 2000, 99), ...windowOf(T + 4000, T + 3000, 99)],
    100,
  ],
  [
    'a reset that moves within a window (whole seconds from now, rounded up) states no length, then or later',
    [
      { sentAt: T, remaining: 99, resetAt: T + 1000 },
      { sentAt: T + 300, remaining: 60, resetAt: T + 1300 },
      ...windowOf(T + 2000, T + 1000, 99),
      ...windowOf(T + 3000, T + 2000, 99),
    ],
    undefined,
  ],
  [
    "an older window's answer read after the next window's says nothing of the length",
    [
      ...windowOf(T + 1000, T, 50),
      { sentAt: T + 1001, remaining: 99, resetAt: T + 2000 },
      { sentAt: T + 990, remaining: 1, resetAt: T + 1000 },
    ],
    100,
  ],
])('%s', (_name, words, rate) => {
  expect(windowRate(words)).toBe(rate);
});

test('a window shown to refill has no rate of its own: it is paced by what it grants', () => {
  const quota = new WindowQuota();
  for (const w of [...windowOf(T + 1000, T, 99), ...windowOf(T + 2000, T + 1000, 99)]) {
    quota.heard({ ok: true, limit: 100, at: w.sentAt + 20, ...w }, true);
  }
  expect(quota.ratePerSecond).toBe(100);
  // A success that says nothing of a quota: a bucket that speaks only on its refusals.
  quota.heard({ ok: true, remaining: undefined, resetAt: undefined, sentAt: T + 2100, at: T + 2120 }, true);
  expect(quota.ratePerSecond).toBeUndefined();
});
