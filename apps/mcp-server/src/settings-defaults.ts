/**
 * The `[mcp_server]` settings when nothing is configured: what the zod schema in settings.ts
 * yields for an empty table (a unit test holds the two equal). A plain object, so the server can
 * start without building that schema; settings.ts is loaded with the engine.
 */
import type { McpServerSettings } from './settings.js';

export const DEFAULT_SETTINGS: McpServerSettings = Object.freeze({
  codex_events: true,
  approval_timeout_seconds: 600,
  approval_fallback: 'deny',
  session_tools: false,
  progress_interval_ms: 15_000,
  http_session_idle_seconds: 600,
  http_max_sessions: 256,
});
