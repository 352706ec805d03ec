/**
 * The shape of a row of the method tables (`methods.ts`, `methods-current.ts`) and the helpers
 * that build rows.
 */
import type { z } from 'zod';
import { NoParamsSchema } from './primitives.js';

/**
 * What needs `capabilities.experimentalApi`. Without it the server answers -32600
 * `<descriptor> requires experimentalApi capability`, after the params were parsed.
 */
export interface ExperimentalGate {
  /** The whole method is experimental; its descriptor is the method name. */
  readonly wholeMethod?: boolean;
  /** Params fields gated when present with a value other than null or false: field → descriptor. */
  readonly fields?: Readonly<Record<string, string>>;
  /** Variants of a params union tagged by `type` that are gated: tag → descriptor. */
  readonly variants?: Readonly<Record<string, string>>;
}

/** One row of `clientRequests`. */
export interface ClientRequestSpec {
  /** Schema of `params`. */
  readonly params: z.ZodType;
  /** Schema of `result`. */
  readonly result: z.ZodType;
  /**
   * False for the methods the reference defines without params; every other method answers a
   * request without params with ``Invalid request: missing field `params` ``, even when all its
   * fields are optional.
   */
  readonly paramsRequired: boolean;
  /** Experimental gating, absent for stable methods with only stable fields. */
  readonly experimental?: ExperimentalGate;
}

/** One row of `serverRequests`. */
export interface ServerRequestSpec {
  /** Schema of `params`. */
  readonly params: z.ZodType;
  /** Schema of the client's `result`. */
  readonly result: z.ZodType;
}

/**
 * Who receives a server notification: `all` is every initialized connection (a broadcast),
 * `subscribers` the connections subscribed to the thread it is about, `connection` only the one
 * connection it concerns (the one that initialized, owns the process, watch or search session).
 * Connections that opted out of a method never receive it.
 */
export type NotificationAudience = 'all' | 'subscribers' | 'connection';

/** One row of `serverNotifications`. */
export interface ServerNotificationSpec {
  /** Schema of `params`. */
  readonly params: z.ZodType;
  /** Who receives it. */
  readonly audience: NotificationAudience;
}

export function request<P extends z.ZodType, R extends z.ZodType>(params: P, result: R, experimental?: ExperimentalGate) {
  return { params, result, paramsRequired: true, experimental } as const;
}

export function requestWithoutParams<R extends z.ZodType>(result: R, experimental?: ExperimentalGate) {
  return { params: NoParamsSchema, result, paramsRequired: false, experimental } as const;
}

export function notification<P extends z.ZodType, A extends NotificationAudience>(params: P, audience: A) {
  return { params, audience } as const;
}
