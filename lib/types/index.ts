/**
 * The public vocabulary: every type a user can name. It imports nothing from the engine, the
 * policy or the guards, so they can all depend on it without a cycle.
 */
export type * from './options';
export type * from './request-options';
export type * from './part-options';
export type * from './events';
export type * from './guards';
export type * from './rate-limit-store';
export type * from './chaos';
