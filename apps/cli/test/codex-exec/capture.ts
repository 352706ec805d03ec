/**
 * Captures the reference fixtures: runs every scenario against the official Codex 0.130.0
 * binary (`scripts/install-codex-tui.sh` installs it) and writes fixtures/<name>.json with the
 * command line, exit code and normalised stdout/stderr/files. Run through
 * `node scripts/capture-codex-exec.mjs` (which bundles this file); the provenance of every
 * fixture is this script plus scenarios.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runScenario } from './harness.js';
import { SCENARIOS } from './scenarios.js';

const repo = process.argv[2];
if (!repo) throw new Error('usage: capture <repo root> [scenario...]');
const only = process.argv.slice(3);
const bin = execFileSync('bash', [join(repo, 'scripts/install-codex-tui.sh')], { encoding: 'utf8' }).trim();
const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
const out = join(repo, 'apps/cli/test/codex-exec/fixtures');
mkdirSync(out, { recursive: true });
for (const scenario of SCENARIOS) {
  if (only.length > 0 && !only.includes(scenario.name)) continue;
  const result = await runScenario(scenario, { command: bin, prefix: [], homeEnv: (home) => ({ CODEX_HOME: home }) });
  writeFileSync(join(out, `${scenario.name}.json`), `${JSON.stringify({ reference: version, scenario: scenario.name, ...result }, null, 2)}\n`);
  process.stderr.write(`${scenario.name}: exit ${result.exitCode}, ${result.stdout.length} stdout lines\n`);
}
