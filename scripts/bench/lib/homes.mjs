/**
 * The server side of a bench run: a temp home per server whose config.toml points the `mock`
 * provider at the scripted model (ours as DEPUTY_HOME, the reference's as CODEX_HOME), and the
 * command line that starts each server on stdio. Approvals are `never` and the sandbox is off,
 * so both servers run the same turns without prompts or sandbox start-up costs.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { distPath, importDist } from './paths.mjs';

/** The config.toml both servers get (test-support's `mockProviderConfigToml`: Codex keys, which Deputy reads too). */
export async function benchConfigToml(modelUrl) {
  const { mockProviderConfigToml } = await importDist('testSupport');
  return mockProviderConfigToml(modelUrl);
}

/** Creates a temp home with the bench config; `cleanup()` removes it. */
export async function makeHome(kind, modelUrl) {
  const dir = await mkdtemp(path.join(os.tmpdir(), `deputy-bench-${kind}-home-`));
  await writeFile(path.join(dir, 'config.toml'), await benchConfigToml(modelUrl));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** DEPUTY_BENCH_NODE_FLAGS: extra Node flags for our server (e.g. `--cpu-prof`) when profiling. */
export function benchNodeFlags(env = process.env) {
  return (env.DEPUTY_BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
}

/**
 * The spawn options of a server: `kind` is `deputy` or `reference`; `bin` is the reference
 * binary (ignored for ours); `listen` the transport (stdio by default, or `ws://127.0.0.1:PORT`).
 */
export function serverSpawnOptions(kind, home, { bin, cwd, viaCli = false, listen = 'stdio://' } = {}) {
  const env = { ...process.env, RUST_LOG: 'error', NO_COLOR: '1' };
  if (kind === 'deputy') {
    // `viaCli`: the command users run, `deputy app-server`, instead of the server's own bin.
    const entry = viaCli ? [distPath('cli'), 'app-server'] : [distPath('appServer')];
    return { label: 'deputy', command: process.execPath, args: [...benchNodeFlags(), ...entry, '--listen', listen], env: { ...env, DEPUTY_HOME: home }, cwd };
  }
  return { label: 'reference', command: bin, args: ['app-server', '--listen', listen], env: { ...env, CODEX_HOME: home }, cwd };
}
