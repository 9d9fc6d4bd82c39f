// vitest runs only the seed-scenario example here; `npm test` (jest) starts it from testing/seed-scenarios-vitest.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['__tests__/support/testing/*.vitest.ts'], root: new URL('../../..', import.meta.url).pathname },
});
