/** The Deputy home directory and auth.json, on real temp directories. */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAuthFile, readStoredApiKey } from '../../src/config/auth.js';
import { ConfigError } from '../../src/config/errors.js';
import { ensureHome, resolveHome } from '../../src/config/home.js';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'deputy-home-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('home directory', () => {
  it('uses DEPUTY_HOME when set, made absolute', () => {
    expect(resolveHome({ DEPUTY_HOME: '/srv/deputy' })).toBe('/srv/deputy');
    expect(resolveHome({ DEPUTY_HOME: 'rel/home' })).toBe(path.resolve('rel/home'));
  });

  it('defaults to ~/.deputy', () => {
    expect(resolveHome({ HOME: '/home/u' })).toBe('/home/u/.deputy');
    expect(resolveHome({ DEPUTY_HOME: '  ', HOME: '/home/u' })).toBe('/home/u/.deputy');
  });

  it('creates the home with mode 0700, parents included, and accepts an existing one', async () => {
    const home = path.join(dir, 'a', '.deputy');
    expect(await ensureHome(home)).toBe(home);
    expect((await fs.stat(home)).mode & 0o777).toBe(0o700);
    await expect(ensureHome(home)).resolves.toBe(home);
  });

  it('refuses a home that is a file', async () => {
    const file = path.join(dir, 'file');
    await fs.writeFile(file, '');
    await expect(ensureHome(file)).rejects.toBeInstanceOf(ConfigError);
  });
});

describe('auth.json', () => {
  it('is absent without the file', async () => {
    expect(await readAuthFile(dir)).toBeNull();
    expect(await readStoredApiKey(dir)).toBeNull();
  });

  it('reads the stored key and keeps other fields', async () => {
    await fs.writeFile(path.join(dir, 'auth.json'), JSON.stringify({ OPENAI_API_KEY: 'sk-1', tokens: { id_token: 'x' } }));
    expect(await readStoredApiKey(dir)).toBe('sk-1');
    expect((await readAuthFile(dir))?.tokens).toEqual({ id_token: 'x' });
  });

  it('names the file when it is not JSON or has the wrong shape', async () => {
    const file = path.join(dir, 'auth.json');
    await fs.writeFile(file, '{ nope');
    await expect(readAuthFile(dir)).rejects.toThrow(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: not valid JSON`));
    await fs.writeFile(file, JSON.stringify({ OPENAI_API_KEY: 42 }));
    await expect(readAuthFile(dir)).rejects.toThrow(`${file}: expected an object with an optional string OPENAI_API_KEY`);
    await fs.writeFile(file, '[]');
    await expect(readAuthFile(dir)).rejects.toBeInstanceOf(ConfigError);
  });
});
