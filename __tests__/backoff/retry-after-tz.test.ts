import { execFileSync } from 'node:child_process';
import path from 'node:path';

// V8 parses an asctime date as local time; HTTP says it is UTC. The parser must not care what
// zone the process runs in, so run it in a process whose zone is not UTC.
test('asctime and the other HTTP-date forms mean UTC in America/New_York too', () => {
  const script = `
    const { parseRetryAfter } = require(${JSON.stringify(path.join(__dirname, '../../lib/policy/retry-after.ts'))});
    const now = Date.UTC(1994, 10, 6, 8, 49, 0);
    console.log(JSON.stringify({
      offset: new Date(now).getTimezoneOffset(),
      asctime: parseRetryAfter('Sun Nov  6 08:49:37 1994', now),
      imf: parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', now),
      rfc850: parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', now),
    }));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], {
    env: { ...process.env, TZ: 'America/New_York' },
    encoding: 'utf8',
  });
  const result = JSON.parse(out) as Record<string, number>;
  expect(result.offset).toBe(300); // the child really runs in New York (UTC-5 in November)
  expect(result).toMatchObject({ asctime: 37_000, imf: 37_000, rfc850: 37_000 });
});
