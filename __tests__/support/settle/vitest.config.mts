// vitest runs only settle()'s file here; `npm test` (jest) starts it from testing/settle-vitest.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['__tests__/support/settle/*.vitest.ts'], root: new URL('../../..', import.meta.url).pathname },
});
