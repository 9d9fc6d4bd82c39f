// Type tests against the packed package, as a consumer installs it. For each fixture project in
// ./fixtures (one tsconfig per moduleResolution, strict with skipLibCheck off, plus one with
// skipLibCheck on as `tsc --init` writes it), this packs the package, unpacks it into a fresh
// node_modules next to the fixture's tsconfig, links the dependencies a real install would bring
// (axios, opossum, uuid, @types/node; not our devDependencies), writes the consumer source below
// and runs `tsc -p`. The consumer source uses `@ts-expect-error` for the negative case, so a
// misspelt option that compiles (a lost augmentation, an `any`) fails the run as well.
//
// The consumer files are written here rather than kept as .ts files in the repository, because
// the root tsconfig includes __tests__ and would try to resolve 'axios-resilience' before a build.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
// What `npm install axios-resilience axios` gives a consumer: our dependencies and peers, plus the
// consumer's own @types/node. `--link NAME` adds one more, to diagnose a failure.
const extra = process.argv.flatMap((arg, i, all) => (arg === '--link' && all[i + 1] ? [all[i + 1]] : []));
const LINKED = [
  ...Object.keys(pkg.dependencies ?? {}),
  ...Object.keys(pkg.peerDependencies ?? {}),
  '@types/node',
  'undici-types',
  ...extra,
];

/** What a user writes; the same text is valid as .ts, .mts and .cts. */
function consumerSource() {
  return `import axios from 'axios';
import type { AxiosResponse } from 'axios';
import { retryPlugin, RetryBudget, CircuitOpenError, parseRetryAfter } from 'axios-resilience';
import type { RetryPluginOptions, RetryRequestOptions, RetryState, StopReason } from 'axios-resilience';
import { startFaultServer, createIdempotentResource, nockRoute, gapsMs } from 'axios-resilience/testing';
import type { FaultServer, Step } from 'axios-resilience/testing';
import { resendCountHook, RESEND_COUNT_ATTRIBUTE } from 'axios-resilience/otel';
import type { ResendCountHook, ResendCountHookOptions } from 'axios-resilience/otel';
import { hedging } from 'axios-resilience/hedging';
import { chaos } from 'axios-resilience/chaos';
import { rateLimitHeaders } from 'axios-resilience/rate-limit-headers';
import { rateLimiting } from 'axios-resilience/rate-limiting';
import { breaker } from 'axios-resilience/breaker';

// The capability subpaths (a browser build needs them for hedge and chaos; Node takes either form).
retryPlugin({ rateLimitHeaders: rateLimitHeaders() });
retryPlugin({ rateLimitHeaders: false });
// @ts-expect-error the dialects come from rateLimitHeaders() or are turned off; true is neither
retryPlugin({ rateLimitHeaders: true });
// @ts-expect-error the plugin's, not a request's
void axios.get('http://127.0.0.1/', { retry: { rateLimitHeaders: false } });
retryPlugin({ hedge: hedging({ delayMs: 'p95', maxHedges: 2 }), chaos: chaos({ faults: [{ rate: 0.1, status: 503 }] }) });
retryPlugin({ rateLimit: rateLimiting({ maxQueue: 100 }) });
retryPlugin({ rateLimit: rateLimiting() });
retryPlugin({ breaker: breaker({ volumeThreshold: 5, key: (_config, origin) => origin }) });
retryPlugin({ breaker: breaker() });
// @ts-expect-error volumeThreshold is a number
breaker({ volumeThreshold: '5' });
// @ts-expect-error maxQueue is a number
rateLimiting({ maxQueue: '100' });
// @ts-expect-error delayMs is ms or a percentile name
hedging({ delayMs: 'soon' });

const options: RetryPluginOptions = { retries: 2, budget: new RetryBudget({ ratio: 0.2 }) };
const plugin = retryPlugin(options);
const eject: () => void = plugin.install(axios.create());
eject();

// The per-request field is typed by the augmentation of AxiosRequestConfig.
void axios.get('http://127.0.0.1/', { retry: { retries: 1 } });
void axios.post('http://127.0.0.1/', {}, { retry: { retries: 1, idempotencyKey: 'order-42' } });
void axios.get('http://127.0.0.1/', { retry: false });
const perCall: RetryRequestOptions = { jitter: 'equal', deadlineMs: 1000 };
void axios.get('http://127.0.0.1/', { retry: perCall });

// @ts-expect-error a misspelt option must not compile
void axios.get('http://127.0.0.1/', { retry: { retriez: 1 } });
// @ts-expect-error budget cannot be changed per request
void axios.get('http://127.0.0.1/', { retry: { budget: false } });
// @ts-expect-error retries is a number
retryPlugin({ retries: '3' });

declare const response: AxiosResponse;
const state: RetryState | undefined = response.config.retryState;
const reason: StopReason | undefined = state?.stopReason;
const isOpen: boolean = new Error('x') instanceof CircuitOpenError;
const ms: number | undefined = parseRetryAfter('5');

const steps: Step[] = ['503', 503, { status: 429, headers: { 'Retry-After': '5' } }, { delayMs: 10 }, { reset: 'after-commit' }];
const payments = createIdempotentResource();
const started: Promise<FaultServer> = startFaultServer({ routes: { 'POST /v1/payments': { steps, resource: payments } } });
const created: number = payments.created;
const gaps: number[] = gapsMs([{ time: 1 }, { time: 2 }]);
// @ts-expect-error a reset step is 'before-commit' or 'after-commit'
const badStep: Step = { reset: 'sometimes' };
void nockRoute;

// The shape of instrumentation-http's requestHook, with OpenTelemetry's Span and Node's requests
// cut down (the bundler fixtures have no @types/node, and the hook's types must not need it).
interface SpanLike {
  setAttribute(key: string, value: string | number | boolean | string[]): SpanLike;
}
interface ClientRequestLike {
  getHeader(name: string): number | string | string[] | undefined;
}
interface IncomingMessageLike {
  headers: Record<string, string | string[] | undefined>;
}
const hookOptions: ResendCountHookOptions = { header: 'X-Retry-Attempt', keepHeader: false };
const requestHook: (span: SpanLike, request: ClientRequestLike | IncomingMessageLike) => void =
  resendCountHook(hookOptions);
const named: ResendCountHook = resendCountHook();
const attribute: 'http.request.resend_count' = RESEND_COUNT_ATTRIBUTE;
// @ts-expect-error keepHeader is a boolean
resendCountHook({ keepHeader: 'yes' });

export { state, reason, isOpen, ms, started, created, gaps, badStep, requestHook, named, attribute };
`;
}

function sourceFiles(tsconfig) {
  return (tsconfig.match(/"files":\s*\[([^\]]*)\]/)?.[1] ?? '')
    .split(',')
    .map((s) => s.trim().replace(/"/g, ''))
    .filter(Boolean);
}

if (['index', 'testing', 'otel'].some((entry) => !existsSync(join(root, `dist/${entry}.d.mts`)))) {
  console.error('test:types: dist/ is missing; run npm run build first');
  process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), 'axios-resilience-types-'));
let failed = 0;
try {
  const [info] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8' }),
  );
  const unpacked = join(work, 'pkg');
  mkdirSync(unpacked);
  execFileSync('tar', ['-xzf', join(work, info.filename), '-C', unpacked, '--strip-components=1']);

  const fixtures = readdirSync(join(here, 'fixtures'), { withFileTypes: true }).filter((d) => d.isDirectory());
  for (const fixture of fixtures) {
    const dir = join(work, fixture.name);
    cpSync(join(here, 'fixtures', fixture.name), dir, { recursive: true });
    const modules = join(dir, 'node_modules');
    mkdirSync(join(modules, '@types'), { recursive: true });
    // A copy, not a link: TypeScript resolves a link to its real path, outside this node_modules.
    cpSync(unpacked, join(modules, 'axios-resilience'), { recursive: true });
    for (const name of LINKED) {
      if (existsSync(join(root, 'node_modules', name)))
        symlinkSync(join(root, 'node_modules', name), join(modules, name), 'dir');
    }
    const tsconfig = readFileSync(join(dir, 'tsconfig.json'), 'utf8');
    for (const file of sourceFiles(tsconfig)) writeFileSync(join(dir, file), consumerSource());
    const result = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
    const ok = result.status === 0;
    if (!ok) failed++;
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${fixture.name} (${sourceFiles(tsconfig).join(', ')})`);
    if (!ok) console.log((result.stdout + result.stderr).replaceAll(dir, `<${fixture.name}>`));
  }
  console.log(`${fixtures.length - failed} passed, ${failed} failed`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed === 0 ? 0 : 1);
