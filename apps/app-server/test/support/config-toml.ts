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
  /** Check the wire against the 0.171 reference too (see `WireValidator`). */
  reference0171?: boolean;
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

