/**
 * Contract tests of `config/value/write` and `config/batchWrite` (docs/app-server.md
 * "Methods served"): format-preserving edits of the home's config.toml (byte-compared),
 * all-or-nothing batches, every refusal with its `data.config_write_error_code`, versions shared
 * with `config/read`, `okOverridden` under a `-c` override, and `config/read` showing written
 * values at once.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commentedConfigToml } from '@deputy/test-support';
import { harnessPerTest, type HarnessOptions } from './support/harness.js';
import type { WireClient } from './support/wire-client.js';

const harness = harnessPerTest();

interface WriteResult {
  status: 'ok' | 'okOverridden';
  version: string;
  filePath: string;
  overriddenMetadata: null | { message: string; overridingLayer: { name: { type: string }; version: string }; effectiveValue: unknown };
}
interface ReadResult {
  config: Record<string, unknown>;
  origins: Record<string, { name: { type: string }; version: string }>;
  layers?: Array<{ name: { type: string; file?: string }; version: string; config: Record<string, unknown> }>;
}


/** A harness whose config.toml is the commented one; returns a client and the file's path. */
async function commented(options: HarnessOptions = {}): Promise<{ client: WireClient; file: string; text: string }> {
  const server = await harness(options);
  const file = join(server.temp.home, 'config.toml');
  const text = commentedConfigToml(server.model.url);
  await writeFile(file, text);
  return { client: await server.connect(), file, text };
}

const userLayer = (read: ReadResult) => read.layers?.find((layer) => layer.name.type === 'user');
const readLayers = (client: WireClient) => client.call<ReadResult>('config/read', { includeLayers: true });

describe('config/value/write', () => {
  it('replaces, upserts and deletes keys in a commented config.toml, keeping comments and other keys', async () => {
    const { client, file, text } = await commented();
    const first = await client.call<WriteResult>('config/value/write', { keyPath: 'model', value: 'other-model', mergeStrategy: 'replace' });
    expect(first).toEqual({ status: 'ok', version: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), filePath: file, overriddenMetadata: null });
    let expected = text.replace('"mock-model"', '"other-model"');
    expect(await readFile(file, 'utf8')).toBe(expected);

    await client.call('config/value/write', { keyPath: 'tui.animations', value: false, mergeStrategy: 'replace' });
    await client.call('config/value/write', { keyPath: 'features.foo_bar', value: true, mergeStrategy: 'upsert' });
    await client.call('config/value/write', { keyPath: 'model_providers.mock', value: { request_max_retries: 1 }, mergeStrategy: 'upsert' });
    expected = expected.replace('animations = true', 'animations = false').replace('request_max_retries = 0', 'request_max_retries = 1') + '\n[features]\nfoo_bar = true\n';
    expect(await readFile(file, 'utf8')).toBe(expected);

    await client.call('config/value/write', { keyPath: 'model', value: null, mergeStrategy: 'replace' });
    expected = expected.replace('# top comment: keep me\nmodel = "other-model"\n', '');
    expect(await readFile(file, 'utf8')).toBe(expected);
    const read = await client.call<ReadResult>('config/read', {});
    expect(read.config).toMatchObject({ model: null, features: { foo_bar: true }, tui: { animations: false } });
    expect(read.origins['model_providers.mock.request_max_retries']?.name.type).toBe('user');
  });

  it('creates missing tables for a new nested key and accepts unknown keys', async () => {
    const { client, file, text } = await commented();
    await client.call('config/value/write', { keyPath: 'projects."/work/app.v2".trust_level', value: 'trusted', mergeStrategy: 'replace' });
    await client.call('config/value/write', { keyPath: 'not_a_real_key', value: 1, mergeStrategy: 'replace' });
    // A new table under a table that only exists through `[model_providers.mock]` becomes a
    // dotted key of the root table (toml-patch's placement; valid TOML, same value).
    await client.call('config/value/write', { keyPath: 'model_providers.local', value: { name: 'Local', base_url: 'http://127.0.0.1:1/v1' }, mergeStrategy: 'replace' });
    expect(await readFile(file, 'utf8')).toBe(
      text.replace(
        'sandbox_mode = "danger-full-access"\n',
        'sandbox_mode = "danger-full-access"\nnot_a_real_key = 1\nmodel_providers.local = { name = "Local", base_url = "http://127.0.0.1:1/v1" }\n',
      ) + '\n[projects]\n"/work/app.v2" = { trust_level = "trusted" }\n',
    );
    const read = await client.call<ReadResult>('config/read', {});
    expect(read.config).toMatchObject({ not_a_real_key: 1, model_providers: { local: { name: 'Local' } }, projects: { '/work/app.v2': { trust_level: 'trusted' } } });
  });

  it('answers each refused write with -32600 and its config_write_error_code, writes nothing and keeps serving', async () => {
    const { client, file, text } = await commented();
    const code = (name: string) => ({ config_write_error_code: name });
    const refusals: Array<[Record<string, unknown>, string, ReturnType<typeof code>]> = [
      [{ keyPath: '', value: 1, mergeStrategy: 'replace' }, 'keyPath must not be empty', code('configValidationError')],
      [{ keyPath: 'a..b', value: 1, mergeStrategy: 'replace' }, 'keyPath: empty segment in key "a..b"', code('configValidationError')],
      [
        { keyPath: 'approval_policy', value: 'bogus-policy', mergeStrategy: 'replace' },
        `Invalid configuration: ${file}: approval_policy: expected one of untrusted, on-failure, on-request, never, got "bogus-policy"`,
        code('configValidationError'),
      ],
      [{ keyPath: 'tui', value: { animations: null }, mergeStrategy: 'upsert' }, 'invalid value for tui: TOML has no null (a null value deletes the whole key)', code('configValidationError')],
      [{ keyPath: 'model.name', value: 'x', mergeStrategy: 'replace' }, 'cannot set model.name: model is not a table', code('configValidationError')],
      [
        { keyPath: 'model', value: 'x', mergeStrategy: 'replace', expectedVersion: 'sha256:deadbeef' },
        'Configuration was modified since last read. Fetch latest version and retry.',
        code('configVersionConflict'),
      ],
      [{ keyPath: 'model', value: 'x', mergeStrategy: 'replace', filePath: join(dirname(file), 'other.toml') }, 'Only writes to the user config are allowed', code('configLayerReadonly')],
    ];
    for (const [params, message, data] of refusals) {
      const response = await client.request('config/value/write', params);
      expect(response.error, JSON.stringify(params)).toEqual({ code: -32600, message, data });
    }
    expect(await readFile(file, 'utf8')).toBe(text);
    expect((await client.call<WriteResult>('config/value/write', { keyPath: 'model', value: 'x', mergeStrategy: 'replace', filePath: file })).status).toBe('ok');
  });

  it('checks expectedVersion against the user layer version config/read reports', async () => {
    const { client } = await commented();
    const before = userLayer(await readLayers(client))?.version;
    const written = await client.call<WriteResult>('config/value/write', { keyPath: 'model', value: 'v2', mergeStrategy: 'replace', expectedVersion: before });
    expect(written.version).not.toBe(before);
    expect(userLayer(await readLayers(client))?.version).toBe(written.version);
    const stale = await client.request('config/value/write', { keyPath: 'model', value: 'v3', mergeStrategy: 'replace', expectedVersion: before });
    expect(stale.error?.data).toEqual({ config_write_error_code: 'configVersionConflict' });
    expect((await client.call<WriteResult>('config/value/write', { keyPath: 'model', value: 'v3', mergeStrategy: 'replace', expectedVersion: written.version })).status).toBe('ok');
  });

  it('reports okOverridden with the session flags layer when a -c override sets the written key', async () => {
    const { client, file } = await commented({ overrides: ['model_verbosity="low"'] });
    const session = (await readLayers(client)).layers?.find((layer) => layer.name.type === 'sessionFlags');
    const result = await client.call<WriteResult>('config/value/write', { keyPath: 'model_verbosity', value: 'high', mergeStrategy: 'replace' });
    expect(result).toEqual({
      status: 'okOverridden',
      version: expect.stringMatching(/^sha256:/),
      filePath: file,
      overriddenMetadata: { message: 'Overridden by session flags', overridingLayer: { name: { type: 'sessionFlags' }, version: session?.version }, effectiveValue: 'low' },
    });
    expect(await readFile(file, 'utf8')).toContain('model_verbosity = "high"\n');
    const read = await readLayers(client);
    expect(read.config.model_verbosity).toBe('low');
    expect(userLayer(read)?.config.model_verbosity).toBe('high');
    expect((await client.call<WriteResult>('config/value/write', { keyPath: 'model_reasoning_effort', value: 'high', mergeStrategy: 'replace' })).status).toBe('ok');
  });
});

describe('config/batchWrite', () => {
  it('applies every edit or none, and an empty batch changes nothing', async () => {
    const { client, file, text } = await commented();
    const failed = await client.request('config/batchWrite', {
      edits: [
        { keyPath: 'model', value: 'should-not-apply', mergeStrategy: 'replace' },
        { keyPath: 'approval_policy', value: 'bogus', mergeStrategy: 'replace' },
      ],
    });
    expect(failed.error).toEqual({
      code: -32600,
      message: `Invalid configuration: ${file}: approval_policy: expected one of untrusted, on-failure, on-request, never, got "bogus"`,
      data: { config_write_error_code: 'configValidationError' },
    });
    expect(await readFile(file, 'utf8')).toBe(text);

    const result = await client.call<WriteResult>('config/batchWrite', {
      edits: [
        { keyPath: 'model', value: 'batch-model', mergeStrategy: 'replace' },
        { keyPath: 'model_reasoning_effort', value: 'high', mergeStrategy: 'replace' },
        { keyPath: 'tools.web_search', value: false, mergeStrategy: 'upsert' },
      ],
      reloadUserConfig: true,
    });
    expect(result.status).toBe('ok');
    const expected =
      text.replace('"mock-model"', '"batch-model"').replace('sandbox_mode = "danger-full-access"\n', 'sandbox_mode = "danger-full-access"\nmodel_reasoning_effort = "high"\n') +
      '\n[tools]\nweb_search = false\n';
    expect(await readFile(file, 'utf8')).toBe(expected);

    const empty = await client.call<WriteResult>('config/batchWrite', { edits: [] });
    expect(empty).toEqual({ ...result, overriddenMetadata: null });
    expect(await readFile(file, 'utf8')).toBe(expected);
  });

  it('shows written values in config/read at once, on every connection', async () => {
    const server = await harness();
    const [writer, reader] = [await server.connect(), await server.connect()];
    const result = await writer.call<WriteResult>('config/batchWrite', {
      edits: [
        { keyPath: 'model_reasoning_effort', value: 'high', mergeStrategy: 'replace' },
        { keyPath: 'developer_instructions', value: 'Be brief.', mergeStrategy: 'replace' },
      ],
      filePath: join(server.temp.home, 'config.toml'),
    });
    const read = await readLayers(reader);
    expect(read.config).toMatchObject({ model_reasoning_effort: 'high', developer_instructions: 'Be brief.', model: 'mock-model' });
    expect(read.origins.model_reasoning_effort).toEqual({ name: { type: 'user', file: join(server.temp.home, 'config.toml') }, version: result.version });
    expect(userLayer(read)?.version).toBe(result.version);
  });
});
