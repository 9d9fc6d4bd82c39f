/**
 * `axios-resilience/testing`: prove retry behaviour against a scripted server before production
 * does it for you. Node only (it uses `node:http`); the main entry stays browser-safe.
 *
 * @module axios-resilience/testing
 */
export { startFaultServer, gapsMs } from './server';
export type { FaultServer, FaultServerOptions } from './server';
export { createIdempotentResource } from './resource';
export type { CreatedResource, IdempotentResource, IdempotentResourceOptions, RecordedRequest } from './resource';
export { nockRoute, connectionReset } from './nock';
export { seededRandom } from '../policy/random';
export { assertCreatedOnce, assertRetryWaits } from './assertions';
export type { RetryWaitBounds } from './assertions';
export type { NockInterceptorLike, NockRoute, NockScopeLike } from './nock';
export type { Route } from './route';
export type { NormalizedStep, Outcome, ResetStep, ResponseStep, StatusStep, Step } from './steps';
export { settle } from './settle';
export type { SettleOptions } from './settle';
export type { FakeClockLike, RunnerTimersLike, SinonClockLike } from './fake-clock';
