// vitest runs only the fake-clock file here; `npm test` (jest) starts it from deadline-and-abort/fake-clocks.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['__tests__/support/clocks/*.vitest.ts'], root: new URL('../../..', import.meta.url).pathname },
});
