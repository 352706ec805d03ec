/**
 * Edits of the user config.toml: format-preserving set/merge/delete (byte-compared against the
 * reference's snapshots where Deputy writes the same text), all-or-nothing batches, the refusals
 * (bad key path or value, resolver rejection, stale version, another file), atomic replacement,
 * override detection and the reload.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commentedConfigToml } from '@deputy/test-support';
import { applyConfigEdits, ConfigWriteError, reloadUserConfig, writeUserConfig, type ConfigEdit } from '../../src/config/config-write.js';
import { ConfigError } from '../../src/config/errors.js';
import { loadConfig } from '../../src/config/load-config.js';

/** The config.toml of the reference capture (`09-config-toml-snapshots.json`, "before"). */
const COMMENTED = commentedConfigToml();

const FILE = '/home/u/.deputy/config.toml';
const edit = (keyPath: string, value: unknown, mergeStrategy: ConfigEdit['mergeStrategy'] = 'replace'): ConfigEdit => ({ keyPath, value, mergeStrategy });
const refusal = (fn: () => unknown): { reason: string; message: string } => {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigWriteError) return { reason: e.reason, message: e.message };
    throw e;
  }
  throw new Error('expected a ConfigWriteError');
};

describe('applyConfigEdits', () => {
  it('replaces a value in place, keeping every comment and blank line (reference snapshot)', () => {
    expect(applyConfigEdits(COMMENTED, [edit('model', 'other-model')], FILE)).toBe(COMMENTED.replace('"mock-model"', '"other-model"'));
  });

  it('sets nested keys, upserts into an existing table and appends a new table at the end', () => {
    const out = applyConfigEdits(
      COMMENTED,
      [edit('tui.animations', false), edit('features.foo_bar', true, 'upsert'), edit('model_providers.mock', { request_max_retries: 1 }, 'upsert')],
      FILE,
    );
    expect(out).toBe(
      COMMENTED.replace('animations = true', 'animations = false').replace('request_max_retries = 0', 'request_max_retries = 1') + '\n[features]\nfoo_bar = true\n',
    );
  });

  it('deletes a key with the comment lines directly above it and appends new keys to their table (reference snapshot)', () => {
    const out = applyConfigEdits(COMMENTED, [edit('model', null), edit('model_verbosity', 'high')], FILE);
    expect(out).toBe(COMMENTED.replace('# top comment: keep me\nmodel = "mock-model"\n', '').replace('sandbox_mode = "danger-full-access"\n', 'sandbox_mode = "danger-full-access"\nmodel_verbosity = "high"\n'));
  });

  it('returns the text byte for byte when nothing changes (same value, deleting a missing key)', () => {
    const crlf = 'model = "m"\r\n\r\n[tui]\r\nanimations = true\r\n';
    expect(applyConfigEdits(crlf, [edit('model', 'm'), edit('nope', null), edit('a.b.c', null), edit('tui.nope', null)], FILE)).toBe(crlf);
  });

  it('creates missing parent tables for a new nested table and keeps CRLF line endings', () => {
    const crlf = 'model = "m"\r\n';
    const out = applyConfigEdits(crlf, [edit('model_providers.local', { name: 'Local', base_url: 'http://127.0.0.1:8080/v1', http_headers: { 'X-Team': 'core' } })], FILE);
    expect(out).toBe('model = "m"\r\n\r\n[model_providers]\r\nlocal = { name = "Local", base_url = "http://127.0.0.1:8080/v1", http_headers = { X-Team = "core" } }\r\n');
  });

  it('writes new tables down to tableSectionDepth as [a.b] sections, deeper ones inline', () => {
    const out = applyConfigEdits('# keep\nmodel = "m"\n', [edit('mcp_servers.docs', { command: 'npx', args: ['-y'], env: { A: 'b' } })], FILE, 2);
    expect(out).toBe('# keep\nmodel = "m"\n\n[mcp_servers]\n\n[mcp_servers.docs]\ncommand = "npx"\nargs = [ "-y" ]\nenv = { A = "b" }\n');
  });

  it('writes a quoted segment as one key (project trust for a path with dots)', () => {
    const out = applyConfigEdits('', [edit('projects."/home/me/app.v2".trust_level', 'trusted')], FILE);
    expect(out).toBe('[projects]\n"/home/me/app.v2" = { trust_level = "trusted" }\n');
  });

  it('merges tables deeply with upsert and replaces them whole with replace', () => {
    const text = '[tui]\n# keep\nanimations = true\nnotifications = true\n';
    expect(applyConfigEdits(text, [edit('tui', { animations: false, theme: 'dark' }, 'upsert')], FILE)).toBe('[tui]\n# keep\nanimations = false\nnotifications = true\ntheme = "dark"\n');
    expect(applyConfigEdits(text, [edit('tui', { theme: 'dark' }, 'replace')], FILE)).toBe('[tui]\ntheme = "dark"\n');
    // upsert of a non-table, or onto a non-table, replaces
    expect(applyConfigEdits('x = 1\n', [edit('x', { a: 1 }, 'upsert')], FILE)).toBe('[x]\na = 1\n');
  });

  it('writes every JSON value kind and keeps TOML-only syntax elsewhere untouched', () => {
    const text = 'when = 1979-05-27T07:32:00Z\nhex = 0x10 # hex\nbig = 1_000\n';
    const out = applyConfigEdits(text, [edit('s', 'é "q" \\'), edit('f', 1.5), edit('n', -3), edit('list', [1, 'two', [true]]), edit('rows', [{ a: 1 }])], FILE);
    expect(out).toBe(text + 's = "é \\"q\\" \\\\"\nf = 1.5\nn = -3\nlist = [ 1, "two", [ true ] ]\nrows = [ { a = 1 } ]\n');
  });

  it('refuses bad key paths and values with validation errors', () => {
    expect(refusal(() => applyConfigEdits(COMMENTED, [edit('', 1)], FILE))).toEqual({ reason: 'validation', message: 'keyPath must not be empty' });
    expect(refusal(() => applyConfigEdits(COMMENTED, [edit('  ', 1)], FILE)).message).toBe('keyPath must not be empty');
    expect(refusal(() => applyConfigEdits(COMMENTED, [edit('a..b', 1)], FILE)).message).toBe('keyPath: empty segment in key "a..b"');
    expect(refusal(() => applyConfigEdits(COMMENTED, [edit('__proto__.x', 1)], FILE)).message).toContain('"__proto__" is not allowed');
    expect(refusal(() => applyConfigEdits(COMMENTED, [edit('tui', JSON.parse('{"__proto__": 1}'))], FILE)).message).toContain('"__proto__" is not allowed');
    expect(refusal(() => applyConfigEdits(COMMENTED, [edit('tui', { a: null })], FILE)).message).toBe('invalid value for tui: TOML has no null (a null value deletes the whole key)');
    expect(refusal(() => applyConfigEdits(COMMENTED, [edit('n', 2 ** 60)], FILE)).message).toBe(`invalid value for n: ${2 ** 60} is out of range`);
    expect(refusal(() => applyConfigEdits(COMMENTED, [edit('model.x', 1)], FILE)).message).toBe('cannot set model.x: model is not a table');
  });

  it('refuses a file that is not valid TOML', () => {
    const { reason, message } = refusal(() => applyConfigEdits('model = \n', [edit('model', 'x')], FILE));
    expect(reason).toBe('validation');
    expect(message).toMatch(/^Invalid configuration: \/home\/u\/\.deputy\/config\.toml:1:\d+: invalid TOML/);
  });
});

describe('writeUserConfig', () => {
  let home: string;
  let configPath: string;
  beforeEach(async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'deputy-cw-'));
    configPath = path.join(home, 'config.toml');
  });
  afterEach(async () => {
    await fs.rm(home, { recursive: true, force: true });
  });

  const load = (overrides: string[] = []) => loadConfig({ home, cwd: home, env: {}, overrides });
  const versionOf = (table: Record<string, unknown>): string => `v:${JSON.stringify(table)}`;
  const write = async (edits: ConfigEdit[], extra: { expectedVersion?: string | null; filePath?: string | null; overrides?: string[] } = {}) =>
    writeUserConfig(await load(extra.overrides), { edits, versionOf, expectedVersion: extra.expectedVersion, filePath: extra.filePath });
  const rejection = async (promise: Promise<unknown>): Promise<{ reason: string; message: string }> => {
    const e: unknown = await promise.then(
      () => new Error('expected a ConfigWriteError'),
      (error: unknown) => error,
    );
    if (!(e instanceof ConfigWriteError)) throw e;
    return { reason: e.reason, message: e.message };
  };

  it('creates a missing config.toml with mode 0600 and returns the re-resolved config', async () => {
    const result = await write([edit('model_reasoning_effort', 'high'), edit('tui.animations', false)]);
    expect(await fs.readFile(configPath, 'utf8')).toBe('model_reasoning_effort = "high"\n\n[tui]\nanimations = false\n');
    expect((await fs.stat(configPath)).mode & 0o777).toBe(0o600);
    expect(result.config.reasoningEffort).toBe('high');
    expect(result.config.sources.fileTable).toEqual({ model_reasoning_effort: 'high', tui: { animations: false } });
    expect(result.version).toBe(versionOf(result.config.sources.fileTable));
    expect(result.overridden).toBeNull();
    expect(await fs.readdir(home)).toEqual(['config.toml']);
  });

  it('creates an empty file for an empty batch and leaves an existing file untouched', async () => {
    await write([]);
    expect(await fs.readFile(configPath, 'utf8')).toBe('');
    await fs.writeFile(configPath, COMMENTED, { mode: 0o644 });
    const before = await fs.stat(configPath);
    await write([]);
    await write([edit('model', 'mock-model')]);
    expect((await fs.stat(configPath)).ino).toBe(before.ino);
  });

  it('replaces an existing file atomically, keeping its mode', async () => {
    await fs.writeFile(configPath, 'model = "a"\n');
    await fs.chmod(configPath, 0o640);
    const before = await fs.stat(configPath);
    await write([edit('model', 'b')]);
    const after = await fs.stat(configPath);
    expect(after.ino).not.toBe(before.ino);
    expect(after.mode & 0o777).toBe(0o640);
    expect(await fs.readFile(configPath, 'utf8')).toBe('model = "b"\n');
    expect(await fs.readdir(home)).toEqual(['config.toml']);
  });

  it('writes through a symlinked config.toml', async () => {
    const real = path.join(home, 'dotfiles.toml');
    await fs.writeFile(real, 'model = "a"\n');
    await fs.symlink(real, configPath);
    await write([edit('model', 'b')], { filePath: real });
    expect((await fs.lstat(configPath)).isSymbolicLink()).toBe(true);
    expect(await fs.readFile(real, 'utf8')).toBe('model = "b"\n');
  });

  it('applies a batch all or nothing, naming the bad key', async () => {
    await fs.writeFile(configPath, COMMENTED);
    const refused = await rejection(write([edit('model', 'should-not-apply'), edit('approval_policy', 'bogus')]));
    expect(refused.reason).toBe('validation');
    expect(refused.message).toBe(`Invalid configuration: ${configPath}: approval_policy: expected one of untrusted, on-failure, on-request, never, got "bogus"`);
    expect(await fs.readFile(configPath, 'utf8')).toBe(COMMENTED);
    const badPath = await rejection(write([edit('model', 'x'), edit('', 1)]));
    expect(badPath).toEqual({ reason: 'validation', message: 'keyPath must not be empty' });
    expect(await fs.readFile(configPath, 'utf8')).toBe(COMMENTED);
  });

  it('accepts unknown keys and rejects results the resolver refuses', async () => {
    await fs.writeFile(configPath, COMMENTED);
    await write([edit('not_a_real_key', 1), edit('features.foo_bar', true)]);
    expect(await fs.readFile(configPath, 'utf8')).toContain('not_a_real_key = 1\n');
    const refused = await rejection(write([edit('model_provider', 'nope')]));
    expect(refused.message).toMatch(/^Invalid configuration: .*model_provider: unknown provider "nope"/);
  });

  it('checks expectedVersion against the file on disk', async () => {
    await fs.writeFile(configPath, 'model = "a"\n');
    const stale = await rejection(write([edit('model', 'b')], { expectedVersion: 'v:{}' }));
    expect(stale).toEqual({ reason: 'versionConflict', message: 'Configuration was modified since last read. Fetch latest version and retry.' });
    const result = await write([edit('model', 'b')], { expectedVersion: versionOf({ model: 'a' }) });
    expect(result.version).toBe(versionOf({ model: 'b' }));
  });

  it('refuses any file but the user config.toml', async () => {
    for (const filePath of [path.join(home, 'other.toml'), 'config.toml', path.join(home, '.codex', 'config.toml')]) {
      expect(await rejection(write([edit('model', 'x')], { filePath }))).toEqual({ reason: 'readonlyLayer', message: 'Only writes to the user config are allowed' });
    }
    await write([edit('model', 'x')], { filePath: path.join(home, '.', 'config.toml') });
    expect(await fs.readFile(configPath, 'utf8')).toBe('model = "x"\n');
  });

  it('reports the first edited key a -c override still decides, with the value in force', async () => {
    await fs.writeFile(configPath, 'model = "a"\n[tui]\nanimations = true\n');
    const overrides = ['model_verbosity="low"', 'tui.theme="dark"'];
    expect((await write([edit('model', 'b')], { overrides })).overridden).toBeNull();
    expect((await write([edit('model_verbosity', 'low')], { overrides })).overridden).toBeNull();
    expect((await write([edit('model', 'c'), edit('model_verbosity', 'high')], { overrides })).overridden).toEqual({ keyPath: 'model_verbosity', effectiveValue: 'low' });
    expect((await write([edit('model_verbosity', null)], { overrides })).overridden).toEqual({ keyPath: 'model_verbosity', effectiveValue: 'low' });
    expect((await write([edit('tui', { animations: false }, 'upsert')], { overrides })).overridden).toEqual({
      keyPath: 'tui',
      effectiveValue: { animations: false, theme: 'dark' },
    });
  });
});

describe('reloadUserConfig', () => {
  let home: string;
  beforeEach(async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'deputy-cw-'));
  });
  afterEach(async () => {
    await fs.rm(home, { recursive: true, force: true });
  });

  it('keeps the same config while the file is unchanged and picks up edits made outside', async () => {
    const configPath = path.join(home, 'config.toml');
    await fs.writeFile(configPath, '# comment\nmodel_reasoning_effort = "low"\n');
    const config = await loadConfig({ home, cwd: home, env: {}, overrides: [] });
    expect(await reloadUserConfig(config)).toBe(config);
    await fs.writeFile(configPath, 'model_reasoning_effort = "high"\n');
    const next = await reloadUserConfig(config);
    expect(next.reasoningEffort).toBe('high');
    await fs.rm(configPath);
    expect((await reloadUserConfig(next)).reasoningEffort).toBeNull();
    await fs.writeFile(configPath, 'model_reasoning_effort = \n');
    await expect(reloadUserConfig(next)).rejects.toBeInstanceOf(ConfigError);
  });
});
