/**
 * `mallocTrim` (malloc-trim.node, built by `pnpm build` where a C compiler is found): C memory a
 * process freed goes back to the system, measured on the host in `/proc/<pid>/smaps`. The child
 * fills glibc's heap with 40 MiB of buffers, frees all but one in a hundred (and the last one, so
 * the heap's top stays in use and glibc cannot simply shrink it), collects, and reports the heap's
 * resident size before and after the trim.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { hasCCompiler, isGlibc } from '@deputy/test-support';
import { describe, expect, it } from 'vitest';

const BUILT = fileURLToPath(new URL('../../dist/util/native-addon.js', import.meta.url));
const ADDON = fileURLToPath(new URL('../../dist/native/malloc-trim.node', import.meta.url));

const CHILD = `
const fs = require('node:fs');
const heapKb = () => {
  const smaps = fs.readFileSync('/proc/self/smaps', 'utf8');
  const at = smaps.indexOf('[heap]');
  return at < 0 ? 0 : Number(/Rss:\\s+(\\d+) kB/.exec(smaps.slice(at))[1]);
};
import(process.argv[1]).then(({ mallocTrim }) => {
  const trim = mallocTrim();
  let all = [];
  for (let i = 0; i < 40000; i++) all.push(Buffer.allocUnsafeSlow(1000).fill(i & 255));
  const filled = heapKb();
  const kept = all.filter((_, i) => i % 100 === 0 || i === 39999);
  all = null;
  // the dropped buffers' memory is freed when V8 collects them
  globalThis.gc(); globalThis.gc();
  const freed = heapKb();
  const released = trim === null ? null : trim();
  const trimmed = heapKb();
  process.stdout.write(JSON.stringify({ loaded: trim !== null, released, filled, freed, trimmed, kept: kept.length }));
});
`;

describe.runIf(isGlibc)('mallocTrim', () => {
  it.runIf(hasCCompiler)('gives the pages of freed C memory back, wherever they lie in the heap', async () => {
    expect(fs.existsSync(ADDON), `${ADDON} was not built (pnpm build compiles it)`).toBe(true);
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '-e', CHILD, BUILT], { timeout: 30_000 });
    const r = JSON.parse(stdout) as { loaded: boolean; released: boolean; filled: number; freed: number; trimmed: number; kept: number };
    expect(r.loaded).toBe(true);
    expect(r.kept).toBe(401);
    // Without the trim the freed 40 MiB stay resident (the check that the test measures something).
    expect(r.filled).toBeGreaterThan(35 * 1024);
    expect(r.freed).toBeGreaterThan(35 * 1024);
    expect(r.released).toBe(true);
    // Left: the 401 buffers kept, each on a page of its own (4 KiB), and the heap's own bookkeeping.
    expect(r.trimmed).toBeLessThan(8 * 1024);
  });
});
