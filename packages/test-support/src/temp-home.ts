/**
 * Temporary Deputy home and workspace directories for tests and demos: two fresh directories
 * under the OS temp dir, removed together by `cleanup()`. Creates nothing inside them.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A temporary `DEPUTY_HOME` and workspace. */
export interface TempHome {
  /** Absolute path to use as `DEPUTY_HOME`. */
  home: string;
  /** Absolute path of an empty workspace directory. */
  cwd: string;
  /** Removes both directories and everything in them. Safe to call twice. */
  cleanup(): Promise<void>;
}

/**
 * Creates a temp home and workspace. Paths are resolved through symlinks (macOS `/tmp`), so
 * they compare equal to what child processes report as their cwd.
 */
export async function makeTempHome(prefix = 'deputy-test-'): Promise<TempHome> {
  const home = await realpath(await mkdtemp(join(tmpdir(), `${prefix}home-`)));
  const cwd = await realpath(await mkdtemp(join(tmpdir(), `${prefix}cwd-`)));
  return {
    home,
    cwd,
    cleanup: async () => {
      await Promise.all([rm(home, { recursive: true, force: true }), rm(cwd, { recursive: true, force: true })]);
    },
  };
}
