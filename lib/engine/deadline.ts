import { AxiosError, isCancel } from 'axios';
import type { InternalAxiosRequestConfig } from 'axios';

/**
 * The call's deadline (`deadlineMs`): the one place that knows how much time is left, clips an
 * attempt's timeout to it, and tells a failure the deadline caused from one it did not.
 */
export class Deadline {
  /** The attempt in flight has the time left as its timeout, shorter than axios's own. */
  private clipped = false;

  constructor(
    private readonly deadlineMs: number | undefined,
    private readonly startedAt: number,
    private readonly now: () => number,
  ) {}

  /** The time left, in ms, or `undefined` without a deadline. */
  timeLeft(): number | undefined {
    const deadlineMs = this.deadlineMs;
    return deadlineMs === undefined ? undefined : deadlineMs - (this.now() - this.startedAt);
  }

  /**
   * The config of the next attempt: with a deadline, its timeout is the smaller of axios's and the
   * time left, so an attempt in flight ends at the deadline. A copy, so the caller's config keeps
   * its own timeout for a re-send. `undefined` when no time is left.
   */
  clip(config: InternalAxiosRequestConfig): InternalAxiosRequestConfig | undefined {
    if (this.deadlineMs === undefined) return config;
    const left = Math.ceil(this.timeLeft()!);
    if (left <= 0) return undefined;
    const timeout = config.timeout ?? 0;
    this.clipped = timeout === 0 || left < timeout;
    return this.clipped ? { ...config, timeout: left } : config;
  }

  /** Whether the deadline ended this failed attempt: its timeout was the time left, and it ran out. */
  endedAttempt(error: unknown): boolean {
    if (!this.clipped || isCancel(error)) return false;
    const response = (error as { response?: unknown } | null)?.response;
    return response === undefined || response === null;
  }

  /** The error of a call whose deadline passed before anything failed (it ran out in a hook). */
  error(config: InternalAxiosRequestConfig): AxiosError {
    return new AxiosError(`deadline of ${this.deadlineMs} ms passed`, AxiosError.ETIMEDOUT, config);
  }
}
