// A call in flight when plugin.close() runs must not start a retry wait afterwards: nothing would
// end it, and it would hold the caller and the process for up to maxDelayMs.
import http from 'node:http';
import axios from 'axios';
import { retryPlugin } from '../../lib';
import { startServer, until } from '../support/test-server';

test.each([
  ['on', {}],
  ['off', { breaker: false as const }],
])(
  'breaker %s: close() while a call is in flight: the failure that comes back is not retried after close',
  async (_name, options) => {
    let release: (() => void) | undefined;
    const server = await startServer((_req, res) => {
      release = () => res.writeHead(503, { 'retry-after': '30' }).end();
    });
    const agent = new http.Agent({ keepAlive: false });
    const client = axios.create({ httpAgent: agent, proxy: false });
    const plugin = retryPlugin(options);
    plugin.install(client);
    try {
      const call = client.get(`${server.url}/x`).then(
        () => 'resolved',
        (e: unknown) => (axios.isAxiosError(e) ? e.config?.retryState?.stopReason : String(e)),
      );
      await until(() => release !== undefined);
      await plugin.close();
      const closedAt = Date.now();
      release!();
      await expect(call).resolves.toBe('aborted');
      expect(Date.now() - closedAt).toBeLessThan(500);
      expect(server.requests).toHaveLength(1);
    } finally {
      agent.destroy();
      await server.close();
    }
  },
  5_000,
);
