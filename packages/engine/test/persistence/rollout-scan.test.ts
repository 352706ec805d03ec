/**
 * The quick reads of a rollout: `scanRollout` (only the lines a caller wants, classified from
 * their first bytes) and `readRolloutSync` (the whole file, or the part a scan saw), checked
 * against `readRollout` on the same files, and the resume view they give (`RESUME_LINES`).
 */
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rolloutLine, type RolloutLine, type RolloutLineType } from '../../src/persistence/rollout-line.js';
import { readRollout, readRolloutSync, RolloutFormatError, scanRollout } from '../../src/persistence/rollout-reader.js';
import { RolloutWriter } from '../../src/persistence/rollout-store.js';
import { messageTurns, replayRollout, RESUME_LINES, scanRolloutHead } from '../../src/thread/replay.js';
import { makeHome, makeMeta, removeHome, turnLines } from './fixtures.js';

let home: string;
beforeEach(async () => {
  home = await makeHome();
});
afterEach(async () => {
  await removeHome(home);
});

function writeThread(lines: RolloutLine[]): { path: string; meta: ReturnType<typeof makeMeta> } {
  const meta = makeMeta();
  const writer = RolloutWriter.create(home, meta);
  for (const line of lines) writer.append(line);
  writer.close();
  return { path: writer.path, meta };
}

/** A turn that also ran a command (an item the resume view leaves out) with a large output. */
function commandTurn(turnId: string, atMs: number, output: string): RolloutLine[] {
  const [started, ...rest] = turnLines(turnId, `run something ${turnId}`, atMs);
  const command = {
    type: 'commandExecution' as const,
    id: `${turnId}-c`,
    command: 'ls',
    argv: ['ls'],
    cwd: '/work/project',
    processId: null,
    status: 'completed' as const,
    aggregatedOutput: output,
    exitCode: 0,
    durationMs: 3,
  };
  return [
    started as RolloutLine,
    rolloutLine('response_item', { turnId, item: { type: 'function_call', call_id: `${turnId}-call`, name: 'exec_command', arguments: '{"cmd":"ls"}' } }, atMs + 1),
    rolloutLine('response_item', { turnId, item: { type: 'function_call_output', call_id: `${turnId}-call`, output } }, atMs + 2),
    rolloutLine('item', { turnId, item: command, completedAtMs: atMs + 2 }, atMs + 2),
    ...rest,
  ];
}

describe('scanRollout', () => {
  it('parses only the lines it is asked for, and reads the type of the others from their first bytes', async () => {
    const lines = [...commandTurn('t1', 1000, 'x'.repeat(5000)), rolloutLine('thread_name', { name: 'named' }, 2000), ...turnLines('t2', 'again', 3000)];
    const { path: file, meta } = writeThread(lines);
    const seen: RolloutLineType[] = [];
    const scan = await scanRollout(file, (type) => {
      seen.push(type);
      return type === 'turn_started' || type === 'thread_name';
    });
    expect(scan.meta).toEqual(meta);
    expect(seen).toEqual(lines.map((l) => l.type));
    expect(scan.lines).toEqual(lines.filter((l) => l.type === 'turn_started' || l.type === 'thread_name'));
    expect(scan.bytes).toBe(fs.statSync(file).size);
  });

  it('gives the caller the start of a payload to decide on, without parsing it', async () => {
    const lines = commandTurn('t1', 1000, 'y'.repeat(3000));
    const { path: file } = writeThread(lines);
    const prefixes: string[] = [];
    await scanRollout(file, (type, prefix) => {
      if (type === 'item') prefixes.push(prefix(60));
      return false;
    });
    const items = lines.filter((l) => l.type === 'item');
    expect(prefixes).toEqual(items.map((l) => JSON.stringify(l.payload).slice(0, 60)));
    expect(prefixes[0]).toMatch(/^\{"turnId":"t1","item":\{"type":"commandExecution",/);
  });

  it('parses a line without the writer framing to learn its type, and leaves out lines that fail the check', async () => {
    const { path: file } = writeThread([]);
    const reordered = '{"type":"thread_name","payload":{"name":"by hand"},"v":1,"ts":"2025-01-01T00:00:00.000Z"}';
    const framedButBad = `{"v":1,"type":"turn_started","ts":"2025-01-01T00:00:00.000Z","payload":{"turnId":"t9","startedAtMs":"soon","model":"m","cwd":"/w"}}`;
    fs.appendFileSync(file, `${reordered}\n{not json\n${framedButBad}\n\n`);
    const scan = await scanRollout(file, () => true);
    expect(scan.lines).toEqual([{ v: 1, type: 'thread_name', ts: '2025-01-01T00:00:00.000Z', payload: { name: 'by hand' } }]);
  });

  it('reassembles lines across its read chunks and takes a torn last line only if it is whole JSON', async () => {
    // 1 MiB chunks: 3-byte characters put line and character boundaries across chunk edges.
    const text = '€'.repeat(200_000);
    const lines = Array.from({ length: 12 }, (_, i) => rolloutLine('compacted', { turnId: `t${i}`, summary: text }, i));
    const { path: file } = writeThread(lines);
    fs.appendFileSync(file, '{"v":1,"type":"thread_name","ts":"x","payload":{"na');
    const scan = await scanRollout(file, () => true);
    expect(scan.lines).toHaveLength(12);
    scan.lines.forEach((line, i) => expect(line).toEqual(lines[i]));
    expect(scan.bytes).toBe(fs.statSync(file).size);
  });

  it('refuses a file whose first line is not a session_meta, as readRollout does', async () => {
    const { path: file } = writeThread([]);
    fs.writeFileSync(file, `${JSON.stringify(rolloutLine('rollback', { numTurns: 1 }, 1))}\n`);
    await expect(scanRollout(file, () => true)).rejects.toThrow(RolloutFormatError);
    await expect(scanRollout(file, () => true)).rejects.toThrow(/first line is rollback/);
    fs.writeFileSync(file, '');
    await expect(scanRollout(file, () => true)).rejects.toThrow(/empty/);
    await expect(scanRollout(`${file}.missing`, () => true)).rejects.toThrow(/ENOENT/);
  });
});

describe('readRolloutSync', () => {
  it('reads what readRollout reads, torn tail and bad lines included', async () => {
    const lines = [...commandTurn('t1', 1000, 'z'.repeat(4000)), ...turnLines('t2', 'second', 2000)];
    const { path: file } = writeThread(lines);
    fs.appendFileSync(file, '{oops}\n{"v":1,"type":"item","ts":"x","payload":{"tur');
    const expected = await readRollout(file);
    const read = readRolloutSync(file);
    expect(read.meta).toEqual(expected.meta);
    expect(read.lines).toEqual(expected.lines);
    expect(read.warnings).toEqual(expected.warnings);
    expect(read.warnings.map((w) => w.kind)).toEqual(['invalid_line', 'torn_tail']);
  });

  it('stops where a scan stopped, so lines appended since are not read', async () => {
    const { path: file } = writeThread(turnLines('t1', 'first', 1000));
    const scan = await scanRollout(file, () => false);
    fs.appendFileSync(file, `${JSON.stringify(rolloutLine('thread_name', { name: 'later' }, 5000))}\n`);
    expect(readRolloutSync(file, { bytes: scan.bytes }).lines).toEqual(turnLines('t1', 'first', 1000));
    expect(readRolloutSync(file).lines).toHaveLength(6);
  });
});

describe('the resume view (RESUME_LINES)', () => {
  it('gives the same turns and head as the whole rollout, without the other items', async () => {
    const lines = [
      ...commandTurn('t1', 1000, 'a'.repeat(10_000)),
      rolloutLine('token_usage', { turnId: 't1', usage: { total: { totalTokens: 5, inputTokens: 3, cachedInputTokens: 0, outputTokens: 2, reasoningOutputTokens: 0 }, last: { totalTokens: 5, inputTokens: 3, cachedInputTokens: 0, outputTokens: 2, reasoningOutputTokens: 0 }, modelContextWindow: null } }, 1100),
      ...turnLines('t2', 'dropped by the rollback', 2000),
      rolloutLine('rollback', { numTurns: 1 }, 2500),
      rolloutLine('thread_name', { name: 'work' }, 2600),
      ...commandTurn('t3', 3000, 'b'.repeat(300)),
      // A turn cut short by a crash: started, a message, no end.
      ...turnLines('t4', 'interrupted', 4000).slice(0, 3),
    ];
    const { path: file } = writeThread(lines);
    const scan = await scanRollout(file, RESUME_LINES);
    expect(scan.lines.every((l) => l.type !== 'response_item' && !(l.type === 'item' && l.payload.item.type === 'commandExecution'))).toBe(true);
    const all = (await readRollout(file)).lines;
    const now = 9_999;
    expect(messageTurns(scan.lines, now)).toEqual(messageTurns(all, now));
    const replayed = replayRollout(all, now);
    expect(messageTurns(scan.lines, now)).toEqual(
      replayed.turns.map((t) => ({ info: t.info, items: t.items.filter((i) => i.type === 'userMessage' || i.type === 'agentMessage') })),
    );
    expect(messageTurns(scan.lines, now).map((t) => [t.info.id, t.info.status])).toEqual([
      ['t1', 'completed'],
      ['t3', 'completed'],
      ['t4', 'interrupted'],
    ]);
    expect(scanRolloutHead(scan.lines)).toEqual({
      name: replayed.name,
      usage: replayed.usage,
      lastCwd: replayed.lastCwd,
      lastModel: replayed.lastModel,
      contextKey: replayed.contextKey,
    });
  });

  it('keeps the last turn context key, which a compaction or a rollback clears', async () => {
    const started = (turnId: string, contextKey: string) => rolloutLine('turn_started', { turnId, startedAtMs: 1, model: 'm', cwd: '/w', contextKey }, 1);
    const cases: [RolloutLine[], string | null][] = [
      [[started('t1', 'k1'), started('t2', 'k2')], 'k2'],
      [[started('t1', 'k1'), rolloutLine('compacted', { turnId: 't1', summary: 's' }, 2)], null],
      [[started('t1', 'k1'), rolloutLine('rollback', { numTurns: 1 }, 2)], null],
      [[rolloutLine('compacted', { turnId: 't0', summary: 's' }, 0), started('t1', 'k1')], 'k1'],
    ];
    for (const [lines, expected] of cases) {
      const { path: file } = writeThread(lines);
      const scan = await scanRollout(file, RESUME_LINES);
      expect(scanRolloutHead(scan.lines).contextKey).toBe(expected);
      expect(replayRollout((await readRollout(file)).lines).contextKey).toBe(expected);
    }
  });
});
