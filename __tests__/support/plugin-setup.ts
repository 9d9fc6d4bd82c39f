import axios from 'axios';
import { retryPlugin } from '../../lib';
import type { RetryPluginOptions } from '../../lib';
import type { ServerPerTest } from './test-server';

/**
 * `setup(options, adapter)` for a file that uses `serverPerTest()`: an axios instance with the
 * plugin installed, closed after the test. Waits are zero (random() = 0) and budget and breaker
 * are off unless `options` turns them on. Without an adapter (here or as the default) the instance
 * keeps axios's own adapter list.
 */
export function setupOn(t: ServerPerTest, defaultAdapter?: 'http' | 'fetch') {
  return function setup(options: RetryPluginOptions = {}, adapter: 'http' | 'fetch' | undefined = defaultAdapter) {
    const http = axios.create(adapter === undefined ? {} : { adapter });
    const plugin = retryPlugin({ random: () => 0, budget: false, breaker: false, ...options });
    plugin.install(http);
    t.plugins.push(plugin);
    return { http, plugin };
  };
}
