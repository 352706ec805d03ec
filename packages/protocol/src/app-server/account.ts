/**
 * Params and results of the `account/*` methods (read, login/start, login/cancel, logout,
 * rateLimits/read) and the account values their notifications carry: the account, the plan
 * type, the auth mode and the rate-limit snapshot. `account/read` errors are fatal for the TUI,
 * so its result must always be well formed.
 */
import { z } from 'zod';
import { Int32Schema, Int64Schema } from './primitives.js';

/** ChatGPT plan of the signed-in account. */
export const PlanTypeSchema = z.enum([
  'free',
  'go',
  'plus',
  'pro',
  'prolite',
  'team',
  'self_serve_business_usage_based',
  'business',
  'enterprise_cbp_usage_based',
  'enterprise',
  'edu',
  'unknown',
]);
export type PlanType = z.infer<typeof PlanTypeSchema>;

/** The signed-in account. `apiKey` (or `chatgpt`) makes the TUI skip its login screen. */
export const AccountSchema = z.discriminatedUnion('type', [
  z.object({ /** Signed in with an API key. */ type: z.literal('apiKey') }),
  z.object({
    /** Signed in with ChatGPT. */
    type: z.literal('chatgpt'),
    /** Account e-mail. */
    email: z.string(),
    /** Plan. */
    planType: PlanTypeSchema,
  }),
  z.object({ /** Amazon Bedrock credentials. */ type: z.literal('amazonBedrock') }),
]);
export type Account = z.infer<typeof AccountSchema>;

/** How the server authenticates upstream (`account/updated.authMode`). */
export const AuthModeSchema = z.enum(['apikey', 'chatgpt', 'chatgptAuthTokens', 'agentIdentity']);
export type AuthMode = z.infer<typeof AuthModeSchema>;

/** `account/read` params. The params object itself is required. */
export const GetAccountParamsSchema = z.object({
  /** Refresh ChatGPT tokens before answering (default false). */
  refreshToken: z.boolean().optional(),
});
export type GetAccountParams = z.infer<typeof GetAccountParamsSchema>;

/**
 * `account/read` result. `account` is reported only when the active provider needs OpenAI auth;
 * with another provider it is null and `requiresOpenaiAuth` false.
 */
export const GetAccountResultSchema = z.object({
  /** The account, null when not signed in or not relevant. */
  account: AccountSchema.nullable(),
  /** Whether the active provider needs OpenAI auth. */
  requiresOpenaiAuth: z.boolean(),
});
export type GetAccountResult = z.infer<typeof GetAccountResultSchema>;

/** `account/login/start` params, tagged by `type`. */
export const LoginAccountParamsSchema = z.discriminatedUnion('type', [
  z.object({
    /** Store an API key (not checked; `""` is accepted). */
    type: z.literal('apiKey'),
    /** The key. */
    apiKey: z.string(),
  }),
  z.object({
    /** Browser OAuth with a local callback server. */
    type: z.literal('chatgpt'),
    /** Use the streamlined login page. */
    codexStreamlinedLogin: z.boolean().optional(),
  }),
  z.object({ /** Device-code login. */ type: z.literal('chatgptDeviceCode') }),
  z.object({
    /** Tokens supplied by a host app (experimental). */
    type: z.literal('chatgptAuthTokens'),
    /** Access token. */
    accessToken: z.string(),
    /** ChatGPT account id. */
    chatgptAccountId: z.string(),
    /** Plan type, if known. */
    chatgptPlanType: z.string().nullish(),
  }),
]);
export type LoginAccountParams = z.infer<typeof LoginAccountParamsSchema>;

/** `account/login/start` result; completion is reported by `account/login/completed`. */
export const LoginAccountResultSchema = z.discriminatedUnion('type', [
  z.object({ /** The key was stored. */ type: z.literal('apiKey') }),
  z.object({
    /** Browser login started. */
    type: z.literal('chatgpt'),
    /** Login id (UUID) for `account/login/cancel`. */
    loginId: z.string(),
    /** URL to open; carries `originator=<clientInfo.name>`. */
    authUrl: z.string(),
  }),
  z.object({
    /** Device-code login started. */
    type: z.literal('chatgptDeviceCode'),
    /** Login id. */
    loginId: z.string(),
    /** Where the user enters the code. */
    verificationUrl: z.string(),
    /** The code. */
    userCode: z.string(),
  }),
  z.object({ /** Tokens accepted. */ type: z.literal('chatgptAuthTokens') }),
]);
export type LoginAccountResult = z.infer<typeof LoginAccountResultSchema>;

/** `account/login/cancel` params. A non-UUID id gives `invalid login id: <x>`. */
export const CancelLoginAccountParamsSchema = z.object({
  /** The login to cancel. */
  loginId: z.string(),
});
export type CancelLoginAccountParams = z.infer<typeof CancelLoginAccountParamsSchema>;

/** `account/login/cancel` result. */
export const CancelLoginAccountResultSchema = z.object({
  /** Whether a pending login was cancelled. */
  status: z.enum(['canceled', 'notFound']),
});
export type CancelLoginAccountResult = z.infer<typeof CancelLoginAccountResultSchema>;

/** One rate-limit window. */
export const RateLimitWindowSchema = z.object({
  /** Percentage used. */
  usedPercent: Int32Schema,
  /** Window length in minutes, if known. */
  windowDurationMins: Int64Schema.nullish(),
  /** Reset time in Unix seconds, if known. */
  resetsAt: Int64Schema.nullish(),
});
export type RateLimitWindow = z.infer<typeof RateLimitWindowSchema>;

/** Credit balance of the account. */
export const CreditsSnapshotSchema = z.object({
  /** Whether any credits remain. */
  hasCredits: z.boolean(),
  /** Unlimited credits. */
  unlimited: z.boolean(),
  /** Balance as text, if known. */
  balance: z.string().nullish(),
});
export type CreditsSnapshot = z.infer<typeof CreditsSnapshotSchema>;

/**
 * Rate limits as reported by upstream response headers. Every field is always sent; without
 * ChatGPT auth they are null except `limitId: "codex"`.
 */
export const RateLimitSnapshotSchema = z.object({
  /** Limit id, e.g. `codex`. */
  limitId: z.string().nullable(),
  /** Display name of the limit. */
  limitName: z.string().nullable(),
  /** Primary (short) window. */
  primary: RateLimitWindowSchema.nullable(),
  /** Secondary (long) window. */
  secondary: RateLimitWindowSchema.nullable(),
  /** Credits. */
  credits: CreditsSnapshotSchema.nullable(),
  /** Plan. */
  planType: PlanTypeSchema.nullable(),
  /** Which limit was hit, if any. */
  rateLimitReachedType: z
    .enum([
      'rate_limit_reached',
      'workspace_owner_credits_depleted',
      'workspace_member_credits_depleted',
      'workspace_owner_usage_limit_reached',
      'workspace_member_usage_limit_reached',
    ])
    .nullable(),
});
export type RateLimitSnapshot = z.infer<typeof RateLimitSnapshotSchema>;

/**
 * `account/rateLimits/read` result (ChatGPT auth only; otherwise the call fails with
 * `codex account authentication required to read rate limits`).
 */
export const GetAccountRateLimitsResultSchema = z.object({
  /** The main snapshot. */
  rateLimits: RateLimitSnapshotSchema,
  /** Snapshots by limit id. */
  rateLimitsByLimitId: z.record(z.string(), RateLimitSnapshotSchema).nullable(),
});
export type GetAccountRateLimitsResult = z.infer<typeof GetAccountRateLimitsResultSchema>;
