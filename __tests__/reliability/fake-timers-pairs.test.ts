/**
 * Issue 48 item 7: in one file under fake timers, a test whose plugin retried and was closed leaves
 * nothing the next test's clock depends on. Every ordered pair of axios-mock-adapter, nock and msw
 * runs under jest's fake timers here, and under vitest's in a child process (vitest runs its own files).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setupServer } from 'msw/node';
import { useNock } from '../support/nock-helpers';
import { EXPECTED, SEQUENCE, retryAfterDate, titleOf } from '../support/fake-timer-pairs/scenario';

useNock();
const msw = setupServer();

describe('jest fake timers, a new plugin per test, each mock after each other one', () => {
  SEQUENCE.forEach((kind, index) => {
    test(titleOf(index), async () => {
      expect(await retryAfterDate(kind, index, jest, msw)).toEqual(EXPECTED);
    });
  });
});

interface VitestReport {
  numFailedTests: number;
  testResults: Array<{ assertionResults: Array<{ title: string; status: string }> }>;
}

/** Runs vitest on the pairs' file, bounded in time, and returns its JSON report. */
function runVitest(): Promise<VitestReport> {
  const root = join(__dirname, '../..');
  const dir = mkdtempSync(join(tmpdir(), 'fake-timer-pairs-'));
  const report = join(dir, 'report.json');
  const args = [
    join(root, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--config',
    join(root, '__tests__/support/fake-timer-pairs/vitest.config.mts'),
    '--reporter=json',
    `--outputFile=${report}`,
  ];
  const env = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', CI: '1' };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd: root, env, timeout: 60_000 }, (error, _stdout, stderr) => {
      try {
        resolve(JSON.parse(readFileSync(report, 'utf8')) as VitestReport);
      } catch {
        reject(new Error(`vitest wrote no report (${String(error)}): ${stderr.slice(-2000)}`));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

test('vitest fake timers: the same sequence passes, every test of it', async () => {
  const report = await runVitest();
  const results = report.testResults.flatMap((file) => file.assertionResults);
  expect(results.map(({ title, status }) => [title, status])).toEqual(
    SEQUENCE.map((_, index) => [titleOf(index), 'passed']),
  );
  expect(report.numFailedTests).toBe(0);
}, 90_000);
