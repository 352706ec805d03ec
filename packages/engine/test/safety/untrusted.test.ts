/**
 * Under `untrusted`, nothing outside the known-safe list runs without an approval. A scripted
 * model tries a battery of commands that each create a marker file by some indirection
 * (redirections, substitutions, chains, `find -exec`, `xargs`, `sed w`, a nested shell, …)
 * with no sandbox at all, so the approval is the only guard. Denied, none of them leaves a
 * marker; approved, every one of them does (proof that each really writes); the safe list runs
 * without a question.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execCall, FULL_ACCESS, requireBwrap, SafetyHarness, WORKSPACE_WRITE } from './harness.js';

/** Commands that write `marker` (relative to the workspace) without looking like they do. */
const SNEAKY: ((marker: string) => string)[] = [
  (m) => `touch ${m}`,
  (m) => `echo hi > ${m}`,
  (m) => `echo hi >> ${m}`,
  (m) => `echo $(touch ${m})`,
  (m) => `echo \`touch ${m}\``,
  (m) => `ls && touch ${m}`,
  (m) => `echo ok; touch ${m}`,
  (m) => `true || false; touch ${m}`,
  (m) => `echo ok\ntouch ${m}`,
  (m) => `cat /dev/null | tee ${m}`,
  (m) => `find . -maxdepth 0 -exec touch ${m} \\;`,
  (m) => `echo ${m} | xargs touch`,
  (m) => `sed -n '1w ${m}' seed.txt`,
  (m) => `sort -o ${m} seed.txt`,
  (m) => `env touch ${m}`,
  (m) => `FOO=1 touch ${m}`,
  (m) => `cd . && touch ${m}`,
  (m) => `sh -c 'touch ${m}'`,
  (m) => `cat > ${m} <<'EOF'\nx\nEOF`,
  (m) => `awk 'BEGIN { system("touch ${m}") }'`,
  (m) => `cp seed.txt ${m}`,
  (m) => `mkdir ${m}`,
];

/** Commands on the safe list, run without a question. */
const SAFE = ['ls', 'pwd', 'cat seed.txt', 'head -n 1 seed.txt', 'tail -n 1 seed.txt', 'wc -l seed.txt', 'grep seed seed.txt', 'echo plain', 'ls && pwd', 'cat seed.txt | wc -l', 'sed -n 1p seed.txt', 'git status'];

let h: SafetyHarness;
beforeAll(async () => {
  await requireBwrap();
  h = await SafetyHarness.start();
});
afterAll(async () => {
  await h?.close();
});

/** A fresh thread under untrusted whose workspace holds `seed.txt`. */
async function untrustedThread(sandbox = FULL_ACCESS) {
  const cwd = await h.newWorkspace();
  await writeFile(join(cwd, 'seed.txt'), 'seed line\n');
  return { cwd, thread: await h.startThread({ approvalPolicy: 'untrusted', sandbox, cwd }) };
}

describe('approval policy untrusted', () => {
  it('runs none of the commands off the safe list when every approval is denied, even without a sandbox', async () => {
    const { cwd, thread } = await untrustedThread();
    const commands = SNEAKY.map((make, i) => make(`marker-${i}`));
    const result = await h.runTurn(thread, commands.map((cmd) => execCall(cmd)), [], 'denied');
    expect(result.turn.status).toBe('completed');
    expect(result.asked.map((a) => (a.request.command as string[])[2])).toEqual(commands);
    expect(result.toldModel).toEqual(commands.map(() => 'rejected by user'));
    const leaked = commands.filter((_, i) => existsSync(join(cwd, `marker-${i}`)));
    expect(leaked).toEqual([]);
  });

  it('runs each of those commands once approved, so every one of them really writes', async () => {
    const { cwd, thread } = await untrustedThread();
    const commands = SNEAKY.map((make, i) => make(`marker-${i}`));
    const result = await h.runTurn(thread, commands.map((cmd) => execCall(cmd)), [], 'approved');
    expect(result.asked).toHaveLength(commands.length);
    const missing = commands.filter((_, i) => !existsSync(join(cwd, `marker-${i}`)));
    expect(missing).toEqual([]);
  });

  it('treats a timed-out approval like a refusal: nothing runs', async () => {
    const { cwd, thread } = await untrustedThread(WORKSPACE_WRITE);
    const result = await h.runTurn(thread, [execCall('touch late')], [], 'timed_out');
    expect(result.asked).toHaveLength(1);
    expect(existsSync(join(cwd, 'late'))).toBe(false);
    expect(result.toldModel[0]).toMatch(/timed out/);
  });

  it('runs the safe list without asking, inside the sandbox', async () => {
    const { thread } = await untrustedThread(WORKSPACE_WRITE);
    const result = await h.runTurn(thread, SAFE.map((cmd) => execCall(cmd)), [], 'denied');
    expect(result.asked).toEqual([]);
    expect(result.toldModel).toHaveLength(SAFE.length);
    expect(result.toldModel[2]).toMatch(/Output:\nseed line/);
    expect(result.toldModel[7]).toMatch(/Output:\nplain/);
    expect(result.toldModel.every((t) => /Process exited with code/.test(t))).toBe(true);
  });
});
