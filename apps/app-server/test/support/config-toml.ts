/**
 * The config.toml of a test home (a `mock` provider pointing at the scripted model server, no
 * retries) and the options that shape it. No engine imports, so end-to-end tests can use it
 * without loading the server in the test process.
 */
import type { StepHandler } from '@deputy/test-support';

/** Options of a test home and of the in-process harness. */
export interface HarnessOptions {
  approvalPolicy?: 'untrusted' | 'on-failure' | 'on-request' | 'never';
  sandbox?: 'read-only' | 'workspace-write' | 'danger-full-access';
  /** Extra config.toml text appended after the provider table. */
  extraToml?: string;
  /** Lines placed before the provider table (top-level keys). */
  topToml?: string;
  /** `-c` overrides. */
  overrides?: string[];
  /** Answers model requests when no step is queued. */
  handler?: StepHandler;
  /** Files written into the home before the config is loaded (name → content). */
  homeFiles?: Record<string, string>;
  /** Connection outbound limits (memory connections). */
  outboundSoftLimit?: number;
  outboundHardLimit?: number;
  outboundSoftBytes?: number;
  outboundBudgetBytes?: number;
  /** `AppServerOptions.idleThreadUnloadMs`. */
  idleThreadUnloadMs?: number;
}

/** The config.toml of a test home. */
export function testConfigToml(modelUrl: string, options: HarnessOptions = {}): string {
  return [
    'model = "mock-model"',
    'model_provider = "mock"',
    `approval_policy = "${options.approvalPolicy ?? 'never'}"`,
    `sandbox_mode = "${options.sandbox ?? 'danger-full-access'}"`,
    options.topToml ?? '',
    '[model_providers.mock]',
    'name = "Mock"',
    `base_url = "${modelUrl}"`,
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    'stream_idle_timeout_ms = 10000',
    options.extraToml ?? '',
  ].join('\n');
}


/** `[sandbox_workspace_write]` that keeps /tmp and $TMPDIR (where test homes lie) read-only under workspace-write. */
export const CONFINED_TMP_TOML = ['[sandbox_workspace_write]', 'exclude_slash_tmp = true', 'exclude_tmpdir_env_var = true'].join('\n');
