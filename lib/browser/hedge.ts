/**
 * The browser build's `engine/hedge.ts`: the attempt loop's two hedging steps, run by the code the
 * resolved `hedge` setting carries (see `browser/hedge-options.ts`; a setting without it never
 * gets past resolution).
 */
import type { AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import type { CallRun } from '../engine/call-run';
import type { ResolvedHedge } from '../policy/hedge-options';
import { capabilityOf } from './capability';
import type { HedgeCapability } from './hedge-options';

const code = (hedge: unknown): HedgeCapability => capabilityOf<HedgeCapability>(hedge)!;

export function hedgeable(run: CallRun): boolean {
  return code(run.options.hedge).hedgeable(run);
}

export function hedgedSend(
  run: CallRun,
  hedge: ResolvedHedge,
  attemptConfig: InternalAxiosRequestConfig,
): Promise<AxiosResponse> {
  return code(hedge).hedgedSend(run, hedge, attemptConfig) as Promise<AxiosResponse>;
}
