/**
 * Persistence across managers: a thread's rollout round-trips into a new ThreadManager on the
 * same home (a torn last line included), and the SQLite index is rebuilt when deleted and
 * reconciled when a rollout has no row (a crash between the file and the index update).
 */
import { readFileSync } from 'node:fs';
import { appendFile, copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { functionCall, lastUserText, text } from '@deputy/test-support';
import { ThreadIndex } from '../../src/persistence/thread-index.js';
import { sharedHome, startTestEngine } from '../helpers/engine.js';
import { readRolloutLines, requestText, unansweredCalls } from './support.js';

const shared = sharedHome;

describe('rollout round trip', () => {
  it('resumes a two-turn thread in a new manager despite a torn last line, with history intact', async () => {
    const { server, temp, open } = await shared();
    const first = await open();
    server.enqueue(
      { output: [text('first answer')] },
      { output: [functionCall('exec_command', { cmd: 'echo tool-ran' })] },
      { output: [text('second answer')] },
    );
    const thread = await first.manager.start({ cwd: temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'first question' }]).done;
    await thread.startTurn([{ type: 'text', text: 'second question' }]).done;
    const path = thread.path!;
    const before = await first.manager.read(thread.id);
    await first.manager.close();

    const lines = await readRolloutLines(path);
    expect(lines[0]!.type).toBe('session_meta');
    expect(lines.filter((l) => l.type === 'turn_started')).toHaveLength(2);
    expect(lines.filter((l) => l.type === 'turn_ended')).toHaveLength(2);
    await appendFile(path, '{"v":1,"type":"item","payload":{"turnId":"x","it');

    const second = await open();
    const snapshot = await second.manager.read(thread.id);
    expect(snapshot.turns.map((t) => t.info)).toEqual(before.turns.map((t) => t.info));
    expect(snapshot.turns.map((t) => t.items)).toEqual(before.turns.map((t) => t.items));
    expect(snapshot.turns[1]!.items.map((i) => i.type)).toEqual(['userMessage', 'commandExecution', 'agentMessage']);

    const resumed = await second.manager.resume(thread.id);
    const listed = second.manager.list({ limit: 1 }).threads[0]!;
    expect((await second.manager.read(thread.id)).summary).toMatchObject({ updatedAtMs: listed.updatedAtMs, preview: 'first question' });
    server.enqueue({ output: [text('third answer')] });
    const third = await resumed.startTurn([{ type: 'text', text: 'third question' }]).done;
    expect(third.status).toBe('completed');
    const request = server.requests.at(-1)!;
    const body = requestText(request);
    for (const words of ['first question', 'first answer', 'second question', 'tool-ran', 'second answer']) expect(body).toContain(words);
    expect(body.indexOf('first question')).toBeLessThan(body.indexOf('second question'));
    expect(lastUserText(request)).toBe('third question');
    expect(unansweredCalls(request)).toEqual([]);
    expect(request.body.prompt_cache_key).toBe(thread.id);

    // The torn fragment did not swallow the facts appended after it.
    await second.manager.close();
    const third2 = await open();
    const reread = await third2.manager.read(thread.id);
    expect(reread.turns).toHaveLength(3);
    expect(reread.turns[2]!.info.status).toBe('completed');
    expect(reread.turns[2]!.items.map((i) => i.type)).toEqual(['userMessage', 'agentMessage']);
  });

  it('records a fact before its event is published', async () => {
    const { server, temp, open } = await shared();
    const engine = await open();
    server.enqueue({ output: [text('persisted first')] });
    const thread = await engine.manager.start({ cwd: temp.cwd });
    const seenOnDisk: boolean[] = [];
    thread.events.subscribe((event) => {
      if (event.type === 'item.completed' && event.item.type === 'agentMessage') {
        seenOnDisk.push(readFileSync(thread.path!, 'utf8').includes(event.item.id));
      }
    });
    await thread.startTurn([{ type: 'text', text: 'q' }]).done;
    expect(seenOnDisk).toEqual([true]);
  });
});

describe('a crash while a command runs', () => {
  it('keeps the running command in the rollout and replays it as failed, and the thread goes on', async () => {
    const { server, temp, open } = await shared();
    const first = await open();
    server.enqueue({ output: [functionCall('exec_command', { cmd: 'sleep 20', yield_time_ms: 30_000 })] });
    const thread = await first.manager.start({ cwd: temp.cwd });
    const path = thread.path!;
    let onDisk = '';
    const started = new Promise<void>((resolve) =>
      thread.events.subscribe((event) => {
        if (event.type === 'item.started' && event.item.type === 'commandExecution') {
          // What a kill -9 at this moment leaves: the file as it is now.
          onDisk = readFileSync(path, 'utf8');
          resolve();
        }
      }),
    );
    const turn = thread.startTurn([{ type: 'text', text: 'run it' }]);
    await started;
    await thread.interrupt(turn.turnId);
    await turn.done;
    await first.manager.close();
    await writeFile(path, onDisk);

    const second = await open();
    const snapshot = await second.manager.read(thread.id);
    expect(snapshot.turns[0]!.info.status).toBe('interrupted');
    const command = snapshot.turns[0]!.items.find((i) => i.type === 'commandExecution');
    expect(command).toMatchObject({ type: 'commandExecution', status: 'failed', command: expect.stringContaining('sleep 20') });
    // Resuming writes the repair; the next replay reads the failed item from the file.
    const resumed = await second.manager.resume(thread.id);
    server.enqueue({ output: [text('after the crash')] });
    expect((await resumed.startTurn([{ type: 'text', text: 'again' }]).done).status).toBe('completed');
    expect(unansweredCalls(server.requests.at(-1)!)).toEqual([]);
    await second.manager.close();
    const lines = await readRolloutLines(path);
    const commandLines = lines.filter((l) => l.type === 'item' && (l.payload.item as { type: string }).type === 'commandExecution');
    expect(commandLines.map((l) => [(l.payload.item as { status: string }).status, l.payload.partial ?? false])).toEqual([
      ['inProgress', true],
      ['failed', false],
    ]);
    const third = await open();
    const reread = await third.manager.read(thread.id);
    expect(reread.turns[0]!.items.filter((i) => i.type === 'commandExecution')).toEqual([command]);
    expect(reread.turns).toHaveLength(2);
  });
});

describe('the thread index', () => {
  it('is rebuilt from the rollouts when state.sqlite is deleted', async () => {
    const { server, temp, open } = await shared();
    const first = await open();
    server.enqueue({ output: [text('a')] }, { output: [text('b')] });
    const one = await first.manager.start({ cwd: temp.cwd });
    await one.startTurn([{ type: 'text', text: 'alpha thread' }]).done;
    const two = await first.manager.start({ cwd: temp.cwd });
    await two.startTurn([{ type: 'text', text: 'beta thread' }]).done;
    await first.manager.setName(two.id, 'named beta');
    const listedBefore = first.manager.list({ limit: 10 }).threads;
    await first.manager.close();
    await rm(join(temp.home, 'state.sqlite'), { force: true });
    await rm(join(temp.home, 'state.sqlite-wal'), { force: true });
    await rm(join(temp.home, 'state.sqlite-shm'), { force: true });

    const second = await open();
    const listed = second.manager.list({ limit: 10 }).threads;
    expect(listed.map((t) => t.id).sort()).toEqual([one.id, two.id].sort());
    const beta = listed.find((t) => t.id === two.id)!;
    expect(beta.preview).toBe('beta thread');
    expect(beta.name).toBe('named beta');
    expect(beta.cwd).toBe(temp.cwd);
    expect(beta.path).toBe(two.path);
    expect(listed.map((t) => t.id)).toEqual(listedBefore.map((t) => t.id));
    expect(second.manager.list({ limit: 10, search: 'alpha' }).threads.map((t) => t.id)).toEqual([one.id]);
  });

  it('is updated once per turn end, not once per item, when a turn streams many items', async () => {
    const { server, temp, open } = await shared();
    const engine = await open();
    const items = 300;
    server.enqueue({ output: Array.from({ length: items }, (_, i) => text(`item ${i}`)) });
    const thread = await engine.manager.start({ cwd: temp.cwd });
    const touch = vi.spyOn(ThreadIndex.prototype, 'touch');
    onTestFinished(() => touch.mockRestore());
    const turn = await thread.startTurn([{ type: 'text', text: 'many items' }]).done;
    expect(turn.status).toBe('completed');
    const snapshot = await engine.manager.read(thread.id);
    expect(snapshot.turns[0]!.items.filter((i) => i.type === 'agentMessage')).toHaveLength(items);
    // The first user message, then at most one write per second of streaming, then the turn end.
    expect(touch.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect(touch.mock.calls.length).toBeLessThan(items / 10);
    const listed = engine.manager.list({ limit: 1 }).threads[0]!;
    expect(listed).toMatchObject({ id: thread.id, preview: 'many items', updatedAtMs: snapshot.summary.updatedAtMs });
  });

  it('picks up a rollout whose index row is missing', async () => {
    const { server, temp, open } = await shared();
    // A thread written in another home: its rollout exists, this home's index has never seen it.
    const elsewhere = await startTestEngine({ server });
    onTestFinished(() => elsewhere.close());
    server.enqueue({ output: [text('from elsewhere')] }, { output: [text('local')] });
    const orphan = await elsewhere.manager.start({ cwd: elsewhere.temp.cwd });
    await orphan.startTurn([{ type: 'text', text: 'orphaned thread' }]).done;

    const first = await open();
    const local = await first.manager.start({ cwd: temp.cwd });
    await local.startTurn([{ type: 'text', text: 'local thread' }]).done;
    await first.manager.close();
    const target = join(temp.home, relative(elsewhere.temp.home, orphan.path!));
    await mkdir(dirname(target), { recursive: true });
    await copyFile(orphan.path!, target);

    const second = await open();
    const listed = second.manager.list({ limit: 10 }).threads;
    expect(listed.map((t) => t.id).sort()).toEqual([orphan.id, local.id].sort());
    expect(listed.find((t) => t.id === orphan.id)?.preview).toBe('orphaned thread');
    const snapshot = await second.manager.read(orphan.id);
    expect(snapshot.turns[0]!.info.lastAgentMessage).toBe('from elsewhere');
  });
});

