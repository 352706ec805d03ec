/**
 * ThreadManager operations on real rollouts and a real index: fork at a turn, rollback, archive
 * and unarchive (list filters by archived), and naming, each checked after a round trip through
 * a new manager on the same home.
 */
import { access } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { text, type ScriptedModelServer } from '@deputy/test-support';
import { sharedHome } from '../helpers/engine.js';
import type { Thread } from '../../src/thread/thread.js';
import { requestText } from './support.js';

const shared = sharedHome;

/** Runs turns saying `q1`, `q2`, … answered `a1`, `a2`, … */
async function runTurns(server: ScriptedModelServer, thread: Thread, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 1; i <= n; i++) {
    server.enqueue({ output: [text(`a${i}`)] });
    const handle = thread.startTurn([{ type: 'text', text: `q${i}` }]);
    ids.push(handle.turnId);
    expect((await handle.done).status).toBe('completed');
  }
  return ids;
}

const exists = (path: string) => access(path).then(() => true, () => false);

describe('fork', () => {
  it('copies the turns up to the chosen one into a new thread that the model sees as history', async () => {
    const { server, temp, open } = await shared();
    const engine = await open();
    const source = await engine.manager.start({ cwd: temp.cwd });
    const turnIds = await runTurns(server, source, 3);

    const fork = await engine.manager.fork(source.id, { upToTurnId: turnIds[1] });
    expect(fork.id).not.toBe(source.id);
    expect(fork.meta.forkedFromId).toBe(source.id);
    expect(fork.turns.map((t) => t.info.id)).toEqual(turnIds.slice(0, 2));
    server.enqueue({ output: [text('forked answer')] });
    await fork.startTurn([{ type: 'text', text: 'q-fork' }]).done;
    const body = requestText(server.requests.at(-1)!);
    expect(body).toContain('"q2"');
    expect(body).not.toContain('"q3"');
    expect(body).not.toContain('"a3"');
    expect(source.turns).toHaveLength(3);

    await engine.manager.close();
    const again = await open();
    const listed = again.manager.list({ limit: 10 }).threads;
    expect(listed.find((t) => t.id === fork.id)?.forkedFromId).toBe(source.id);
    expect(listed.find((t) => t.id === fork.id)?.preview).toBe('q1');
    const reread = await again.manager.read(fork.id);
    expect(reread.turns.map((t) => t.items.find((i) => i.type === 'userMessage'))).toHaveLength(3);
  });

  it('rejects a turn id that is not in the thread', async () => {
    const { server, temp, open } = await shared();
    const engine = await open();
    const source = await engine.manager.start({ cwd: temp.cwd });
    await runTurns(server, source, 1);
    await expect(engine.manager.fork(source.id, { upToTurnId: 'nope' })).rejects.toThrow(/not found/);
  });
});

describe('rollback', () => {
  it('drops the last turns from the turns and the model history, and stays dropped after a resume', async () => {
    const { server, temp, open } = await shared();
    const engine = await open();
    const thread = await engine.manager.start({ cwd: temp.cwd });
    const turnIds = await runTurns(server, thread, 3);
    await engine.manager.rollback(thread.id, 2);
    expect(thread.turns.map((t) => t.info.id)).toEqual([turnIds[0]]);
    server.enqueue({ output: [text('after rollback')] });
    await thread.startTurn([{ type: 'text', text: 'q-new' }]).done;
    const body = requestText(server.requests.at(-1)!);
    expect(body).toContain('"q1"');
    expect(body).not.toContain('"q2"');
    expect(body).not.toContain('"a3"');
    await engine.manager.close();

    const again = await open();
    const snapshot = await again.manager.read(thread.id);
    expect(snapshot.turns).toHaveLength(2);
    const resumed = await again.manager.resume(thread.id);
    server.enqueue({ output: [text('later')] });
    await resumed.startTurn([{ type: 'text', text: 'q-later' }]).done;
    const later = requestText(server.requests.at(-1)!);
    expect(later).toContain('"q-new"');
    expect(later).not.toContain('"q2"');
  });

  it('refuses a non-positive count', async () => {
    const { temp, open } = await shared();
    const engine = await open();
    const thread = await engine.manager.start({ cwd: temp.cwd });
    await expect(engine.manager.rollback(thread.id, 0)).rejects.toThrow(/positive/);
  });
});

describe('archive, unarchive and names', () => {
  it('moves a thread out of the live list and back, with list filtering by archived', async () => {
    const { server, temp, open } = await shared();
    const engine = await open();
    const keep = await engine.manager.start({ cwd: temp.cwd });
    await runTurns(server, keep, 1);
    const old = await engine.manager.start({ cwd: temp.cwd });
    await runTurns(server, old, 1);
    const livePath = old.path!;

    await engine.manager.archive(old.id);
    expect(engine.manager.get(old.id)).toBeUndefined();
    expect(engine.manager.list({ limit: 10 }).threads.map((t) => t.id)).toEqual([keep.id]);
    const archived = engine.manager.list({ limit: 10, archived: true }).threads;
    expect(archived.map((t) => t.id)).toEqual([old.id]);
    expect(archived[0]!.archived).toBe(true);
    expect(await exists(livePath)).toBe(false);
    expect(await exists(archived[0]!.path)).toBe(true);
    expect((await engine.manager.read(old.id)).summary.archived).toBe(true);
    await engine.manager.close();

    const again = await open();
    expect(again.manager.list({ limit: 10, archived: true }).threads.map((t) => t.id)).toEqual([old.id]);
    const summary = await again.manager.unarchive(old.id);
    expect(summary.archived).toBe(false);
    expect(summary.path).toBe(livePath);
    expect(again.manager.list({ limit: 10 }).threads.map((t) => t.id).sort()).toEqual([keep.id, old.id].sort());
    expect(again.manager.list({ limit: 10, archived: true }).threads).toEqual([]);
    const resumed = await again.manager.resume(old.id);
    server.enqueue({ output: [text('back again')] });
    expect((await resumed.startTurn([{ type: 'text', text: 'hello again' }]).done).status).toBe('completed');
  });

  it('unarchives a thread that was loaded from the archive, and keeps working with it', async () => {
    const { server, temp, open } = await shared();
    const engine = await open();
    const thread = await engine.manager.start({ cwd: temp.cwd });
    await runTurns(server, thread, 1);
    const livePath = thread.path!;
    await engine.manager.archive(thread.id);
    // Naming loads the thread from its archived rollout.
    await engine.manager.setName(thread.id, 'named while archived');
    expect((await engine.manager.read(thread.id)).summary.archived).toBe(true);
    const summary = await engine.manager.unarchive(thread.id);
    expect(summary).toMatchObject({ archived: false, path: livePath, name: 'named while archived' });
    const fork = await engine.manager.fork(thread.id);
    expect(fork.turns).toHaveLength(1);
    const resumed = await engine.manager.resume(thread.id);
    expect(resumed.path).toBe(livePath);
    server.enqueue({ output: [text('still here')] });
    expect((await resumed.startTurn([{ type: 'text', text: 'hi' }]).done).status).toBe('completed');
    expect((await engine.manager.read(thread.id)).turns).toHaveLength(2);
  });

  it('sets, renames and clears a name that survives a new manager', async () => {
    const { server, temp, open } = await shared();
    const engine = await open();
    const thread = await engine.manager.start({ cwd: temp.cwd });
    await runTurns(server, thread, 1);
    await engine.manager.setName(thread.id, 'first name');
    await engine.manager.setName(thread.id, 'better name');
    expect(engine.manager.list({ limit: 10, search: 'better' }).threads.map((t) => t.id)).toEqual([thread.id]);
    await engine.manager.close();

    const again = await open();
    expect((await again.manager.read(thread.id)).summary.name).toBe('better name');
    expect(again.manager.list({ limit: 10 }).threads[0]!.name).toBe('better name');
    await again.manager.setName(thread.id, null);
    await again.manager.close();
    const third = await open();
    expect((await third.manager.read(thread.id)).summary.name).toBeNull();
    expect(third.manager.list({ limit: 10 }).threads[0]!.name).toBeNull();
  });
});
