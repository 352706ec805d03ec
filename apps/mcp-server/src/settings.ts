/**
 * Settings of the MCP server itself: the `[mcp_server]` table of config.toml (or `-c
 * mcp_server.key=value`). Parsed once with zod; an invalid value is an error naming the key.
 * Owns only the defaults and validation, not the behaviour the settings switch.
 */
import { z } from 'zod';

/** What an approval resolves to when the client cannot be asked (no elicitation capability). */
export const ApprovalFallbackSchema = z.enum(['deny', 'approve', 'abort']);
export type ApprovalFallback = z.infer<typeof ApprovalFallbackSchema>;

/** The `[mcp_server]` table. Unknown keys are rejected so typos do not pass silently. */
export const McpServerSettingsSchema = z
  .object({
    /** Send every turn event as a `codex/event` notification (the reference always does). */
    codex_events: z.boolean().default(true),
    /** Seconds an approval may stay unanswered before it resolves as `timed_out`. */
    approval_timeout_seconds: z.number().positive().max(86_400).default(600),
    /** Decision used when the client did not declare the elicitation capability. */
    approval_fallback: ApprovalFallbackSchema.default('deny'),
    /** Offer `codex-list`, `codex-status`, `codex-interrupt` and `codex-fork`. */
    session_tools: z.boolean().default(false),
    /** Longest gap between two `notifications/progress` while a turn runs, in milliseconds. */
    progress_interval_ms: z.number().int().min(10).max(600_000).default(15_000),
    /** HTTP (2025-era) sessions with no request for this many seconds are closed. */
    http_session_idle_seconds: z.number().int().min(1).max(86_400).default(600),
    /** Most HTTP (2025-era) sessions open at once; one more `initialize` is refused with 503. */
    http_max_sessions: z.number().int().min(1).max(100_000).default(256),
    /** Working directory of a `codex` call without `cwd` (required over HTTP, where calls must otherwise name one). */
    default_cwd: z.string().min(1).optional(),
    /** Where the HTTP bearer token is kept (default `<home>/mcp-server.token`). */
    token_file: z.string().min(1).optional(),
  })
  .strict();
export type McpServerSettings = z.infer<typeof McpServerSettingsSchema>;

/** The settings when nothing is configured (a plain object, so start-up does not parse). */
export { DEFAULT_SETTINGS } from './settings-defaults.js';

/** A `[mcp_server]` value that cannot be used. */
export class SettingsError extends Error {}

/** Parses the raw `[mcp_server]` table; throws SettingsError naming the first bad key. */
export function parseSettings(raw: Record<string, unknown>, where: string): McpServerSettings {
  const parsed = McpServerSettingsSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const key = issue?.code === 'unrecognized_keys' ? issue.keys.join(', ') : (issue?.path.join('.') ?? '');
  const detail = issue?.code === 'unrecognized_keys' ? 'unknown key' : (issue?.message ?? 'invalid value');
  throw new SettingsError(`${where}: mcp_server.${key}: ${detail}`);
}
