#!/usr/bin/env node
// Thread-list benchmark: a synthetic store of 50,000 real rollout files in a temp home, the index
// rebuilt from them, then list queries timed (median and p95). Needs the built engine:
//   pnpm build && node scripts/bench/list.mjs [--threads N] [--iterations N] [--keep]
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const entry = fileURLToPath(new URL('../../packages/engine/dist/persistence/list-bench.js', import.meta.url));
if (!existsSync(entry)) {
  console.error(`missing ${entry}; run \`pnpm build\` first`);
  process.exit(1);
}
const { runListBench, formatListBench } = await import(pathToFileURL(entry).href);

function flag(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

const result = await runListBench({
  threads: flag('threads', 50_000),
  iterations: flag('iterations', 200),
  keepHome: process.argv.includes('--keep'),
  log: (message) => console.error(`[bench] ${message}`),
});
console.log(formatListBench(result));
if (process.argv.includes('--keep')) console.log(`store kept at ${result.home}`);
process.exitCode = result.queries.every((q) => q.p95Ms < 100) ? 0 : 1;
