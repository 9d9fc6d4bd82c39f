// vitest runs only the fake-timer pairs here; `npm test` (jest) starts it from reliability/fake-timers-pairs.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['__tests__/support/fake-timer-pairs/*.vitest.ts'],
    root: new URL('../../..', import.meta.url).pathname,
    testTimeout: 10_000,
  },
});
