/* global AbortController, setImmediate */
/**
 * What a short script does in the lifetime tests: one kind of wait each, against the test's server
 * (`base`), with nothing else keeping the process alive. Plain JavaScript, so that Node (through tsx,
 * on the sources), Bun and Deno (on the build) all run it; the entry scripts (`cjs-entry.cjs`,
 * `esm-entry.mjs`) load the plugin in their own module system and hand it in.
 */
const axios = require('axios');

/** @typedef {'backoff' | 'paused' | 'queued' | 'hedged' | 'aborted-in-pause' | 'closed-in-pause'} ScenarioName */

const OPTIONS = {
  // A backoff of ~300 ms (full jitter, the random source at its top).
  backoff: { baseDelayMs: 300, random: () => 0.99 },
  paused: {},
  queued: {},
  hedged: { hedge: { delayMs: 100 } },
  'aborted-in-pause': {},
  'closed-in-pause': {},
};

/** How many calls a scenario starts at once (the queue needs several to hold a turn). */
const CALLS = { queued: 3 };

/** How one call ended: `{ outcome, status?, attempts?, delaysMs? }`. */
function ended(call) {
  const summary = (status, state) => ({
    outcome: (state && state.stopReason) || 'resolved',
    ...(status === undefined ? {} : { status }),
    ...(state === undefined ? {} : { attempts: state.attempts, delaysMs: state.delaysMs }),
  });
  return call.then(
    (response) => summary(response.status, response.config.retryState),
    (error) => {
      if (axios.isCancel(error)) return { outcome: 'cancelled' };
      return summary(error.response && error.response.status, error.config && error.config.retryState);
    },
  );
}

/**
 * Runs scenario `name` with the plugin module `lib` against `base`/`name`/`tag`; resolves how each
 * of its calls ended.
 */
function runScenario(lib, name, base, tag) {
  const controller = new AbortController();
  const plugin = lib.retryPlugin({
    ...OPTIONS[name],
    // The call is about to wait (its wait begins right after this hook): end it from outside.
    onRetry: () => {
      if (name === 'aborted-in-pause') setTimeout(() => controller.abort(), 50);
      if (name === 'closed-in-pause') setTimeout(() => void plugin.close(), 50);
    },
  });
  const client = axios.create({ baseURL: `${base}/${name}/${tag}` });
  plugin.install(client);
  // Each call its own path (`/1`, `/2`: one route, ids folded), so the server can refuse each call's first
  // request, whichever socket reaches it first.
  const calls = Array.from({ length: CALLS[name] || 1 }, (_, i) =>
    ended(client.get(`/${i + 1}`, { signal: controller.signal })),
  );
  return Promise.all(calls);
}

/**
 * Once the calls have settled: the referenced timers left in the process (Node and Deno list only
 * those, an unref'd one is not there; Bun's list is always empty). A script that finished its work
 * must hold none.
 */
function timersLeft() {
  return new Promise((resolve) =>
    setImmediate(() => resolve(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length)),
  );
}

module.exports = { runScenario, timersLeft };
