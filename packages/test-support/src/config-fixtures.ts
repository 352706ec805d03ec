/**
 * Config files tests and benches share: the config.toml that Deputy and the reference Codex binary
 * both read to run against a scripted model server, and the commented config.toml the reference's
 * config-write capture started from
 * (`packages/protocol/test/fixtures/app-server/captures/app-server/09-config.jsonl`), each with its
 * model provider pointed at a given URL.
 */

/** The `[model_providers.mock]` table: the Responses API at `modelUrl`, without retries. */
function mockProviderTable(modelUrl: string): string[] {
  return ['[model_providers.mock]', 'name = "mock"', `base_url = "${modelUrl}"`, 'wire_api = "responses"', 'request_max_retries = 0', 'stream_max_retries = 0'];
}

/** Options of {@link mockProviderConfigToml}. */
export interface MockProviderConfigOptions {
  /** Defaults to `mock-model`. */
  model?: string;
  /** Defaults to `never`. */
  approvalPolicy?: string;
  /** Defaults to `danger-full-access`. */
  sandboxMode?: string;
}

/**
 * Codex keys, which Deputy reads too: the `mock` provider (Responses API, no retries) at
 * `modelUrl`, no update check, and by default approvals `never` and no sandbox, so both
 * implementations run the same turns without prompts or sandbox start-up costs.
 */
export function mockProviderConfigToml(modelUrl: string, options: MockProviderConfigOptions = {}): string {
  return [
    `model = "${options.model ?? 'mock-model'}"`,
    'model_provider = "mock"',
    `approval_policy = "${options.approvalPolicy ?? 'never'}"`,
    `sandbox_mode = "${options.sandboxMode ?? 'danger-full-access'}"`,
    'check_for_update_on_startup = false',
    ...mockProviderTable(modelUrl),
    '',
  ].join('\n');
}

/** The reference capture's config.toml (comments, an inline comment, blank lines), provider at `modelUrl`. */
export function commentedConfigToml(modelUrl = 'http://127.0.0.1:18100/v1'): string {
  return [
    '# top comment: keep me',
    'model = "mock-model"',
    'model_provider = "mock"',
    'approval_policy = "never" # inline comment',
    '',
    '# comment before sandbox',
    'sandbox_mode = "danger-full-access"',
    '',
    ...mockProviderTable(modelUrl),
    '',
    '[tui]',
    '# comment inside tui table',
    'animations = true',
    '',
  ].join('\n');
}
