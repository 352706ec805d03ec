#!/usr/bin/env node
/**
 * Regenerates apps/cli/test/codex-exec/fixtures/*.json: what the official `codex exec` 0.130.0
 * prints for each scenario of apps/cli/test/codex-exec/scenarios.ts against the repo's scripted
 * Responses-API model server. Installs the reference with scripts/install-codex-tui.sh when
 * needed. Usage: node scripts/capture-codex-exec.mjs [scenario...]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const repo = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'deputy-capture-'));
try {
  const outfile = path.join(dir, 'capture.mjs');
  await build({
    entryPoints: [path.join(repo, 'apps/cli/test/codex-exec/capture.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['source'],
    outfile,
    logLevel: 'error',
  });
  process.argv = [process.argv[0], outfile, repo, ...process.argv.slice(2)];
  await import(pathToFileURL(outfile).href);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
