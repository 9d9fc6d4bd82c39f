/**
 * A short-lived program: installs the plugin, makes calls against the server at argv[2] (one
 * retried to success, one aborted mid-wait, one still waiting when the plugin closes), calls
 * plugin.close() and returns from main. The parent checks that the process then exits on its own.
 */
import axios from 'axios';
import { retryPlugin } from '../../../lib';

async function main(base: string): Promise<void> {
  const client = axios.create();
  let waiting: (() => void) | undefined;
  const plugin = retryPlugin({
    baseDelayMs: 5,
    // The test server stands in for one that dedupes keys: its POSTs are retried.
    idempotencyKey: { serverDedupes: true },
    onRetry: ({ config }) => {
      if (config.url?.endsWith('/long-wait')) waiting?.();
    },
  });
  plugin.install(client);
  const outcome = (p: Promise<unknown>) =>
    p.then(
      () => 'resolved',
      (e: unknown) =>
        axios.isCancel(e) ? 'cancelled' : (axios.isAxiosError(e) && e.config?.retryState?.stopReason) || 'error',
    );

  const retried = await outcome(client.post(`${base}/flaky`, { n: 1 }));

  const controller = new AbortController();
  let started = new Promise<void>((resolve) => (waiting = resolve));
  // A long wait of the call's own (a backoff from a 30 s base), ended by the abort and by close().
  const long = { retry: { baseDelayMs: 30_000, maxDelayMs: 60_000, random: () => 0.9 } };
  const aborted = outcome(client.post(`${base}/long-wait`, { n: 2 }, { signal: controller.signal, ...long }));
  await started;
  controller.abort();

  started = new Promise<void>((resolve) => (waiting = resolve));
  const pending = outcome(client.get(`${base}/long-wait`, long));
  await started;
  // onRetry runs just before the wait is armed; give it a moment so close() finds the wait (a
  // close() in that gap is the race reported with issue 5).
  await new Promise((resolve) => setTimeout(resolve, 50));
  await plugin.close();

  process.stdout.write(`${JSON.stringify({ retried, aborted: await aborted, pending: await pending })}\n`);
  process.stdout.write('main returned\n');
}

void main(process.argv[2] ?? '');
