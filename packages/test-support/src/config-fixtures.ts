/**
 * Config files tests share: the commented config.toml the reference's config-write capture started
 * from (`packages/protocol/test/fixtures/app-server/captures/app-server/09-config.jsonl`), with its
 * model provider pointed at a given URL.
 */

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
    '[model_providers.mock]',
    'name = "mock"',
    `base_url = "${modelUrl}"`,
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[tui]',
    '# comment inside tui table',
    'animations = true',
    '',
  ].join('\n');
}
