import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempHome } from '../src/temp-home.js';

describe('makeTempHome', () => {
  it('creates two empty directories and removes both on cleanup', async () => {
    const extra = await makeTempHome('deputy-extra-');
    expect(extra.home).not.toBe(extra.cwd);
    expect(await readdir(extra.home)).toEqual([]);
    expect((await stat(extra.cwd)).isDirectory()).toBe(true);
    await writeFile(join(extra.home, 'config.toml'), 'model = "x"\n');
    await extra.cleanup();
    await expect(stat(extra.home)).rejects.toThrow(/ENOENT/);
    await expect(stat(extra.cwd)).rejects.toThrow(/ENOENT/);
    await extra.cleanup();
  });
});
