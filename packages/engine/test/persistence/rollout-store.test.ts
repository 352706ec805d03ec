/** Rollout files: the writer's layout and modes, reading back with torn and bad lines, lazy payloads, big files. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rolloutLine, type RolloutLine } from '../../src/persistence/rollout-line.js';
import { readRollout, RolloutFormatError } from '../../src/persistence/rollout-reader.js';
import { RolloutWriter } from '../../src/persistence/rollout-store.js';
import { makeHome, makeMeta, removeHome, turnLines } from './fixtures.js';

let home: string;
beforeEach(async () => {
  home = await makeHome();
});
afterEach(async () => {
  await removeHome(home);
});

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

describe('RolloutWriter', () => {
  it('creates the dated path with mode 0600 and writes session_meta before returning', () => {
    const meta = makeMeta();
    const writer = RolloutWriter.create(home, meta);
    try {
      const d = new Date(meta.createdAtMs);
      const stamp = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}-${pad(d.getMinutes())}-${pad(d.getSeconds())}`;
      const expected = path.join(home, 'sessions', String(d.getFullYear()), pad(d.getMonth() + 1), pad(d.getDate()), `rollout-${stamp}-${meta.id}.jsonl`);
      expect(writer.path).toBe(expected);
      expect(fs.statSync(expected).mode & 0o777).toBe(0o600);
      const first = JSON.parse(fs.readFileSync(expected, 'utf8').trimEnd());
      expect(first).toMatchObject({ v: 1, type: 'session_meta', payload: meta });
    } finally {
      writer.close();
    }
  });

  it('puts each appended line on disk before append returns', () => {
    const writer = RolloutWriter.create(home, makeMeta());
    try {
      const line = rolloutLine('thread_name', { name: 'first' });
      writer.append(line);
      const text = fs.readFileSync(writer.path, 'utf8');
      expect(text.endsWith(`${JSON.stringify(line)}\n`)).toBe(true);
      expect(text.split('\n')).toHaveLength(3);
    } finally {
      writer.close();
    }
  });

  it('writes keys in v, type, ts, payload order whatever the order of the given object', async () => {
    const writer = RolloutWriter.create(home, makeMeta());
    try {
      writer.append({ payload: { name: 'x' }, ts: '2025-01-01T00:00:00.000Z', type: 'thread_name', v: 1 });
      const last = fs.readFileSync(writer.path, 'utf8').trimEnd().split('\n').pop();
      expect(last).toBe('{"v":1,"type":"thread_name","ts":"2025-01-01T00:00:00.000Z","payload":{"name":"x"}}');
    } finally {
      writer.close();
    }
  });

  it('copies lazily read lines into another rollout byte for byte', async () => {
    const big = rolloutLine('compacted', { turnId: 't', summary: 's'.repeat(2000) }, 7);
    const source = RolloutWriter.create(home, makeMeta());
    source.append(big);
    source.close();
    const { lines } = await readRollout(source.path, { lazyLineBytes: 0 });
    const copy = RolloutWriter.create(home, makeMeta());
    for (const line of lines) copy.append(line);
    copy.close();
    const tail = (file: string) => fs.readFileSync(file, 'utf8').split('\n')[1];
    expect(tail(copy.path)).toBe(tail(source.path));
  });

  it('refuses to create a rollout twice and to append after close', () => {
    const meta = makeMeta();
    const writer = RolloutWriter.create(home, meta);
    writer.close();
    writer.close();
    expect(writer.isClosed).toBe(true);
    expect(() => writer.append(rolloutLine('rollback', { numTurns: 1 }))).toThrow(/closed/);
    expect(() => RolloutWriter.create(home, meta)).toThrow(/EEXIST/);
  });

  it('keeps its file open from the second line of a burst, closes it after a second idle or on close, and keeps at most its cap open', async () => {
    // Counted on the host: this process's descriptors that point at rollout files of this home.
    const openRollouts = () =>
      fs.readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(home);
        } catch {
          return false;
        }
      }).length;
    // A lone line (the session_meta of a new thread) leaves nothing open.
    const busy = RolloutWriter.create(home, makeMeta());
    expect(openRollouts()).toBe(0);
    busy.append(rolloutLine('rollback', { numTurns: 1 }));
    expect(openRollouts()).toBe(1);
    busy.append(rolloutLine('rollback', { numTurns: 2 }));
    expect(openRollouts()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect(openRollouts()).toBe(0);
    // After the idle second the next burst opens it again, and the lines are all there.
    busy.append(rolloutLine('rollback', { numTurns: 3 }));
    busy.append(rolloutLine('rollback', { numTurns: 4 }));
    expect(openRollouts()).toBe(1);
    busy.close();
    expect(openRollouts()).toBe(0);
    expect(fs.readFileSync(busy.path, 'utf8').trimEnd().split('\n')).toHaveLength(5);

    // The cap: 256, or a sixteenth of this process's descriptor limit when that is lower.
    const limit = Number(/^Max open files\s+(\d+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'))?.[1]);
    const cap = Math.min(256, Math.floor(limit / 16));
    const many = Array.from({ length: cap + 40 }, () => RolloutWriter.create(home, makeMeta()));
    for (const writer of many) writer.append(rolloutLine('rollback', { numTurns: 1 }));
    expect(openRollouts()).toBe(cap);
    for (const writer of many) expect(fs.readFileSync(writer.path, 'utf8').trimEnd().split('\n')).toHaveLength(2);
    for (const writer of many) writer.close();
    expect(openRollouts()).toBe(0);
  });

  it('rejects a thread id that cannot be part of a file name', () => {
    expect(() => RolloutWriter.create(home, makeMeta({ id: '../escape' }))).toThrow(/not usable in a file name/);
  });
});

describe('readRollout', () => {
  async function writeThread(lines: RolloutLine[]): Promise<{ path: string; meta: ReturnType<typeof makeMeta> }> {
    const meta = makeMeta();
    const writer = RolloutWriter.create(home, meta);
    for (const line of lines) writer.append(line);
    writer.flush();
    writer.close();
    return { path: writer.path, meta };
  }

  it('reads back exactly what was written, lazily parsed or not', async () => {
    const big = 'x'.repeat(10_000);
    const lines = [
      ...turnLines('t1', 'list the files', 1000),
      rolloutLine('response_item', { turnId: 't1', item: { type: 'function_call_output', call_id: 'c', output: `${big}\n"quoted" ✓` } }, 2000),
      rolloutLine('item', { turnId: 't1', item: { type: 'agentMessage', id: 'a2', text: big, phase: null }, completedAtMs: 2001 }, 2001),
    ];
    const { path: file, meta } = await writeThread(lines);
    for (const lazyLineBytes of [0, 2048, Infinity]) {
      const read = await readRollout(file, { lazyLineBytes });
      expect(read.meta).toEqual(meta);
      expect(read.warnings).toEqual([]);
      expect(read.lines).toEqual(lines);
      expect(JSON.parse(JSON.stringify(read.lines))).toEqual(lines);
      expect(read.lines.map((l) => ({ ...l }))).toEqual(lines);
    }
  });

  it('drops a torn last line with a warning and keeps everything before it', async () => {
    const lines = turnLines('t1', 'hello', 1000);
    const { path: file } = await writeThread(lines);
    fs.appendFileSync(file, '{"v":1,"type":"item","ts":"2025-01-01T00:00:00.000Z","payload":{"turnId":"t1","it');
    const read = await readRollout(file);
    expect(read.lines).toEqual(lines);
    expect(read.warnings).toEqual([{ line: lines.length + 2, kind: 'torn_tail', message: expect.stringContaining('partial last line') }]);
  });

  it('reports a bad line in the middle and keeps the lines around it', async () => {
    const lines = turnLines('t1', 'hello', 1000);
    const { path: file } = await writeThread([]);
    fs.appendFileSync(file, `${JSON.stringify(lines[0])}\n{not json\n${JSON.stringify({ v: 1, type: 'rollback', ts: 'x', payload: { numTurns: 'two' } })}\n`);
    fs.appendFileSync(file, `${lines.slice(1).map((l) => JSON.stringify(l)).join('\n')}\n`);
    const read = await readRollout(file);
    expect(read.lines).toEqual(lines);
    expect(read.warnings).toEqual([
      { line: 3, kind: 'invalid_line', message: expect.stringContaining('invalid JSON') },
      { line: 4, kind: 'invalid_line', message: expect.stringContaining('invalid rollback payload at payload.numTurns') },
    ]);
  });

  it('rejects a framed large line that fails its check only when its payload is read', async () => {
    const { path: file } = await writeThread([]);
    const bad = `{"v":1,"type":"item","ts":"2025-01-01T00:00:00.000Z","payload":{"turnId":"t1","item":{"type":"agentMessage","text":"${'y'.repeat(5000)}"}}}`;
    fs.appendFileSync(file, `${bad}\n`);
    const lazy = await readRollout(file, { lazyLineBytes: 1024 });
    expect(lazy.lines).toHaveLength(1);
    expect(() => lazy.lines[0]?.payload).toThrow(RolloutFormatError);
    expect(() => lazy.lines[0]?.payload).toThrow(/line 2: invalid item payload at payload.item/);
    const eager = await readRollout(file, { lazyLineBytes: Infinity });
    expect(eager.lines).toEqual([]);
    expect(eager.warnings).toEqual([{ line: 2, kind: 'invalid_line', message: expect.stringContaining('invalid item payload') }]);
  });

  it('reports a large line whose framing is broken at read time', async () => {
    const { path: file } = await writeThread([]);
    const cut = `{"v":1,"type":"response_item","ts":"2025-01-01T00:00:00.000Z","payload":{"turnId":null,"item":{"type":"message","text":"${'z'.repeat(5000)}`;
    fs.appendFileSync(file, `${cut}\n${JSON.stringify(rolloutLine('rollback', { numTurns: 1 }, 5))}\n`);
    const read = await readRollout(file, { lazyLineBytes: 1024 });
    expect(read.lines.map((l) => l.type)).toEqual(['rollback']);
    expect(read.warnings).toEqual([{ line: 2, kind: 'invalid_line', message: expect.stringContaining('invalid JSON') }]);
  });

  it('treats a large unterminated last line as torn even when it looks framed', async () => {
    const lines = turnLines('t1', 'hello', 1000);
    const { path: file } = await writeThread(lines);
    // Cut inside the payload right after a nested object closed: it ends in `}}` but is not whole.
    fs.appendFileSync(file, `{"v":1,"type":"response_item","ts":"2025-01-01T00:00:00.000Z","payload":{"turnId":null,"item":{"type":"message","content":[{"text":"${'w'.repeat(3000)}","meta":{"a":{}}`);
    const read = await readRollout(file, { lazyLineBytes: 1024 });
    expect(read.lines).toEqual(lines);
    expect(read.warnings).toEqual([{ line: lines.length + 2, kind: 'torn_tail', message: expect.stringContaining('partial last line') }]);
  });

  it('fails on a file whose first line is not session_meta', async () => {
    const file = path.join(home, 'rollout-2025-01-01T00-00-00-abc.jsonl');
    fs.writeFileSync(file, `${JSON.stringify(rolloutLine('rollback', { numTurns: 1 }))}\n`);
    await expect(readRollout(file)).rejects.toThrow(/first line is rollback/);
    fs.writeFileSync(file, '');
    await expect(readRollout(file)).rejects.toThrow(RolloutFormatError);
    fs.writeFileSync(file, '{"v":1,"type":"session_meta"');
    await expect(readRollout(file)).rejects.toThrow(/line 1/);
  });

  it('reassembles lines that cross read chunks, multibyte characters included', async () => {
    // 8 MiB chunks: ~9 MiB of 3-byte characters puts several line and character boundaries across chunk edges.
    const text = '€'.repeat(300_000);
    const lines = Array.from({ length: 10 }, (_, i) => rolloutLine('compacted', { turnId: `t${i}`, summary: text }, i));
    const { path: file } = await writeThread(lines);
    for (const lazyLineBytes of [2048, Infinity]) {
      const read = await readRollout(file, { lazyLineBytes });
      expect(read.warnings).toEqual([]);
      expect(read.lines).toHaveLength(10);
      read.lines.forEach((line, i) => expect(line).toEqual(lines[i]));
    }
  });

  it('stops reading when the signal aborts', async () => {
    const { path: file } = await writeThread(turnLines('t1', 'x', 1));
    await expect(readRollout(file, { signal: AbortSignal.abort() })).rejects.toThrow(/abort/i);
  });
});

describe('RolloutWriter.openForAppend', () => {
  it('continues a rollout and terminates a torn tail first so the next fact stays whole', async () => {
    const writer = RolloutWriter.create(home, makeMeta());
    writer.append(rolloutLine('thread_name', { name: 'a' }, 1));
    writer.close();
    fs.appendFileSync(writer.path, '{"v":1,"type":"thread_na');
    const again = RolloutWriter.openForAppend(writer.path);
    again.append(rolloutLine('thread_name', { name: 'b' }, 2));
    again.close();
    const read = await readRollout(writer.path);
    expect(read.lines.map((l) => l.payload)).toEqual([{ name: 'a' }, { name: 'b' }]);
    expect(read.warnings).toEqual([{ line: 3, kind: 'invalid_line', message: expect.stringContaining('invalid JSON') }]);
  });
});
