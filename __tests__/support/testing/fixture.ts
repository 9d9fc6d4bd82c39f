import axios from 'axios';
import type { AxiosInstance, CreateAxiosDefaults } from 'axios';
import { retryPlugin } from '../../../lib';
import type { RetryPlugin, RetryPluginOptions } from '../../../lib';
import { startFaultServer } from '../../../lib/testing';
import type { FaultServer, FaultServerOptions } from '../../../lib/testing';

/**
 * A fault server and retrying axios instances for one test file; whatever a test started is
 * closed after it. Waits are tiny (base 2 ms) so nothing sleeps for long.
 */
export function useFaultServer() {
  let server: FaultServer | undefined;
  const plugins: RetryPlugin[] = [];
  afterEach(async () => {
    while (plugins.length) await plugins.pop()!.close();
    await server?.close();
    server = undefined;
  });
  return {
    async start(options: FaultServerOptions): Promise<FaultServer> {
      server = await startFaultServer(options);
      return server;
    },
    client(options: RetryPluginOptions = {}, config: CreateAxiosDefaults = {}): AxiosInstance {
      const plugin = retryPlugin({ baseDelayMs: 2, ...options });
      plugins.push(plugin);
      const http = axios.create(config);
      plugin.install(http);
      return http;
    },
  };
}
