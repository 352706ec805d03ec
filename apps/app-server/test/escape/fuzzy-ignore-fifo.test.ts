/**
 * Escape row: what a command leaves at the ignore-file names cannot stall the server. The file
 * search reads `.gitignore`, `.ignore` and `.git/info/exclude` of the tree it walks; a sandboxed
 * command can leave a FIFO at each. Opening a FIFO for reading blocks until a writer comes, and
 * each such open holds one of Node's four file-system threads: a handful of searches would stall
 * every file operation of the server. Six searches run at once over such a tree; each must answer
 * (the FIFOs skipped, the ordinary files listed) and a plain file read must still work after.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
let fifos: string[] = [];

beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  // Old code leaves readers blocked in these opens: a writer that comes and goes releases them.
  for (const fifo of fifos) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // No reader waiting (ENXIO): nothing to release.
    }
  }
  fifos = [];
  await h.close();
});

describe('file search over ignore files that are FIFOs', () => {
  it('answers every search and keeps the server able to read files', async () => {
    const tree = join(h.temp.cwd, 'tree');
    mkdirSync(join(tree, '.git', 'info'), { recursive: true });
    mkdirSync(join(tree, 'src'), { recursive: true });
    writeFileSync(join(tree, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(tree, 'src', 'main.ts'), '');
    fifos = [join(tree, '.gitignore'), join(tree, '.ignore'), join(tree, '.git', 'info', 'exclude'), join(tree, 'src', '.gitignore')];
    for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
    const client = await h.connect();
    const searches = Array.from({ length: 6 }, (_, i) =>
      client.call<{ files: { path: string }[] }>('fuzzyFileSearch', { query: 'main', roots: [tree], cancellationToken: `t${i}` }),
    );
    const deadline = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the searches did not answer within 10 s')), 10_000).unref());
    const answers = await Promise.race([Promise.all(searches), deadline]);
    for (const answer of answers) expect(answer.files.map((f) => f.path)).toContain('src/main.ts');
    const readBack = Promise.race([readFile(join(tree, '.git', 'HEAD'), 'utf8'), deadline]);
    await expect(readBack).resolves.toBe('ref: refs/heads/main\n');
  });
});
