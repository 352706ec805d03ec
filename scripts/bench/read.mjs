#!/usr/bin/env node
// Rollout read benchmark: writes one synthetic rollout (default 100 MiB) and times readRollout
// (lazy default, then touching every payload, then fully eager). Needs the built engine:
//   pnpm build && node scripts/bench/read.mjs [--megabytes N] [--iterations N]
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const entry = fileURLToPath(new URL('../../packages/engine/dist/persistence/read-bench.js', import.meta.url));
if (!existsSync(entry)) {
  console.error(`missing ${entry}; run \`pnpm build\` first`);
  process.exit(1);
}
const { runReadBench, formatReadBench } = await import(pathToFileURL(entry).href);

function flag(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

const result = await runReadBench({ megabytes: flag('megabytes', 100), iterations: flag('iterations', 5) });
console.log(formatReadBench(result));
