/** The index as derived data: rebuilt from rollouts, recovered from corruption, reconciled after a crash, following archives. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rolloutLine, type RolloutLine, type SessionMetaPayload } from '../../src/persistence/rollout-line.js';
import { findRolloutPath, moveFromArchive, moveToArchive, RolloutWriter } from '../../src/persistence/rollout-store.js';
import { openSqlite } from '../../src/persistence/sqlite-driver.js';
import { ThreadIndex, type ThreadRow } from '../../src/persistence/thread-index.js';
import { makeHome, makeMeta, removeHome, turnLines } from './fixtures.js';

let home: string;
const open: ThreadIndex[] = [];
beforeEach(async () => {
  home = await makeHome();
});
afterEach(async () => {
  for (const index of open.splice(0)) index.close();
  await removeHome(home);
});

async function openIndex(): Promise<ThreadIndex> {
  const index = await ThreadIndex.open(home);
  open.push(index);
  return index;
}

/** Writes a thread the way the engine does: rollout line first, then the index update. */
function writeThread(index: ThreadIndex | null, meta: SessionMetaPayload, lines: RolloutLine[]): string {
  const writer = RolloutWriter.create(home, meta);
  index?.upsert({
    id: meta.id, createdAtMs: meta.createdAtMs, updatedAtMs: meta.createdAtMs, cwd: meta.cwd, modelProvider: meta.modelProvider,
    model: meta.model, source: meta.source, preview: '', name: null, archived: false, path: writer.path, forkedFromId: meta.forkedFromId,
  });
  for (const line of lines) {
    writer.append(line);
    if (!index) continue;
    const userText = line.type === 'item' && line.payload.item.type === 'userMessage' ? line.payload.item.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n') : undefined;
    index.touch(meta.id, Date.parse(line.ts), userText);
    if (line.type === 'thread_name') index.setName(meta.id, line.payload.name);
  }
  writer.close();
  return writer.path;
}

function allRows(index: ThreadIndex): ThreadRow[] {
  return [false, true].flatMap((archived) => index.list({ archived, limit: 1000 }).rows);
}

async function buildSampleStore(index: ThreadIndex | null): Promise<string[]> {
  const base = Date.UTC(2025, 2, 1, 9, 0, 0);
  const paths: string[] = [];
  for (let n = 0; n < 6; n++) {
    const meta = makeMeta({ createdAtMs: base + n * 3_600_000, cwd: n % 2 ? '/odd' : '/even', source: n === 5 ? 'cli' : 'vscode', forkedFromId: n === 4 ? 'parent' : null });
    const lines = [...turnLines(`t${n}a`, `question ${n} about ${'x'.repeat(n * 60)}`, meta.createdAtMs + 1_000)];
    if (n % 3 === 0) lines.push(rolloutLine('thread_name', { name: `named ${n}` }, meta.createdAtMs + 2_000), rolloutLine('thread_name', { name: `renamed ${n}` }, meta.createdAtMs + 2_500));
    if (n === 2) lines.push(...turnLines(`t${n}b`, 'a later question', meta.createdAtMs + 50_000));
    if (n === 1) lines.push(rolloutLine('thread_name', { name: 'temporary' }, meta.createdAtMs + 3_000), rolloutLine('thread_name', { name: null }, meta.createdAtMs + 4_000));
    paths.push(writeThread(index, n === 3 ? { ...meta, id: `not-a-uuid-${n}` } : meta, lines));
  }
  // One thread without any user message yet, and one archived.
  paths.push(writeThread(index, makeMeta({ createdAtMs: base - 1 }), []));
  paths[0] = await moveToArchive(home, paths[0] as string, index);
  return paths;
}

describe('ThreadIndex rebuild', () => {
  it('builds the same rows from the rollouts as the incremental updates did', async () => {
    const index = await openIndex();
    await buildSampleStore(index);
    const incremental = allRows(index);
    expect(incremental).toHaveLength(7);
    expect(incremental.some((r) => r.archived)).toBe(true);
    expect(incremental.find((r) => r.name === 'renamed 3')?.preview).toMatch(/^question 3 about x+$/);

    const result = await index.rebuild(home);
    expect(result).toEqual({ indexed: 7, skipped: [] });
    expect(allRows(index)).toEqual(incremental);

    index.close();
    fs.rmSync(path.join(home, 'state.sqlite'));
    const fresh = await openIndex();
    expect(fresh.openOutcome).toBe('created');
    expect(allRows(fresh)).toEqual(incremental);
    expect(fresh.list({ search: 'later question' }).rows).toEqual([]);
    expect(fresh.list({ search: 'renamed' }).rows.map((r) => r.name)).toEqual(['renamed 3']);
  });

  it('skips files that are not valid rollouts and reports them', async () => {
    const index = await openIndex();
    const dir = path.join(home, 'sessions', '2025', '01', '01');
    fs.mkdirSync(dir, { recursive: true });
    const junk = path.join(dir, 'rollout-2025-01-01T00-00-00-junk.jsonl');
    fs.writeFileSync(junk, 'not json\n');
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'ignored');
    writeThread(null, makeMeta(), turnLines('t', 'hi', 5));
    expect(await index.rebuild(home)).toEqual({ indexed: 1, skipped: [junk] });
  });

  it('deletes a corrupt database file and rebuilds it from the rollouts', async () => {
    await buildSampleStore(await openIndex());
    const before = allRows(open[0] as ThreadIndex);
    (open.pop() as ThreadIndex).close();
    fs.writeFileSync(path.join(home, 'state.sqlite'), Buffer.alloc(8192, 0x5a));
    const index = await openIndex();
    expect(index.openOutcome).toBe('rebuilt_corrupt');
    expect(allRows(index)).toEqual(before);
  });

  it('rebuilds a database of an older schema version', async () => {
    const first = await openIndex();
    writeThread(first, makeMeta(), turnLines('t', 'hello', 10));
    first.close();
    const db = openSqlite(path.join(home, 'state.sqlite'));
    db.prepare("UPDATE meta SET value = '0' WHERE key = 'schema_version'").run();
    db.prepare('DELETE FROM threads').run();
    db.close();
    const index = await openIndex();
    expect(index.openOutcome).toBe('rebuilt_old_schema');
    expect(index.count()).toBe(1);
  });

  it('keeps an up-to-date database as it is', async () => {
    const first = await openIndex();
    first.upsert({ ...allRowsTemplate(), id: 'only-in-index' });
    first.close();
    const index = await openIndex();
    expect(index.openOutcome).toBe('opened');
    expect(index.get('only-in-index')).not.toBeNull();
  });
});

function allRowsTemplate(): ThreadRow {
  return { id: 'x', createdAtMs: 1, updatedAtMs: 1, cwd: '/', modelProvider: 'p', model: 'm', source: 's', preview: '', name: null, archived: false, path: '/x', forkedFromId: null };
}

describe('ThreadIndex reconcile', () => {
  it('adds a rollout whose process died before indexing it, and fixes a moved file', async () => {
    const index = await openIndex();
    const indexed = writeThread(index, makeMeta(), turnLines('t1', 'indexed one', 100));
    const orphanMeta = makeMeta({ createdAtMs: Date.UTC(2025, 5, 1) });
    writeThread(null, orphanMeta, turnLines('t2', 'crashed before the index update', Date.UTC(2025, 5, 1, 0, 1)));
    // A move whose index update never happened.
    const archived = path.join(home, 'archived_sessions', path.basename(indexed));
    fs.mkdirSync(path.dirname(archived), { recursive: true });
    fs.renameSync(indexed, archived);

    expect(index.get(orphanMeta.id)).toBeNull();
    expect(await index.reconcile(home)).toEqual({ added: 1, updated: 1, skipped: [] });
    expect(index.get(orphanMeta.id)).toMatchObject({ preview: 'crashed before the index update', updatedAtMs: Date.UTC(2025, 5, 1, 0, 1) + 10 });
    expect(index.list({ archived: true }).rows.map((r) => r.path)).toEqual([archived]);
    expect(await index.reconcile(home)).toEqual({ added: 0, updated: 0, skipped: [] });
  });

  /** An hour ago: a directory of a store that has been quiet for a while. */
  const AN_HOUR_AGO = new Date(Date.now() - 3_600_000);
  function ageDir(dir: string): void {
    fs.utimesSync(dir, AN_HOUR_AGO, AN_HOUR_AGO);
  }

  it('lists again only the directories that changed since its last walk', async () => {
    const index = await openIndex();
    const quiet = makeMeta({ createdAtMs: Date.UTC(2025, 1, 1) });
    const quietPath = writeThread(index, quiet, turnLines('t1', 'quiet day', Date.UTC(2025, 1, 1, 1)));
    const busy = makeMeta({ createdAtMs: Date.UTC(2025, 2, 1) });
    const busyPath = writeThread(index, busy, turnLines('t2', 'busy day', Date.UTC(2025, 2, 1, 1)));
    for (const file of [quietPath, busyPath]) ageDir(path.dirname(file));
    expect(await index.reconcile(home)).toEqual({ added: 0, updated: 0, skipped: [] });

    // Another process writes into both days; the quiet day's directory keeps its old time.
    const intoQuiet = makeMeta({ createdAtMs: Date.UTC(2025, 1, 1, 2) });
    const sneaked = writeThread(null, intoQuiet, turnLines('t3', 'unseen', Date.UTC(2025, 1, 1, 3)));
    const intoBusy = makeMeta({ createdAtMs: Date.UTC(2025, 2, 1, 2) });
    writeThread(null, intoBusy, turnLines('t4', 'seen', Date.UTC(2025, 2, 1, 3)));
    expect(path.dirname(sneaked)).toBe(path.dirname(quietPath));
    ageDir(path.dirname(quietPath));

    // The quiet day is not listed again (its time did not change); the busy day is.
    expect(await index.reconcile(home)).toEqual({ added: 1, updated: 0, skipped: [] });
    expect(index.get(intoBusy.id)).toMatchObject({ preview: 'seen' });
    expect(index.get(intoQuiet.id)).toBeNull();
    // A rebuild (or a new day directory time) finds it.
    fs.utimesSync(path.dirname(sneaked), new Date(), new Date());
    expect(await index.reconcile(home)).toEqual({ added: 1, updated: 0, skipped: [] });
    expect(index.get(intoQuiet.id)).toMatchObject({ preview: 'unseen' });
  });

  it('lists a directory again while its last change is too recent to trust its time', async () => {
    const index = await openIndex();
    const first = makeMeta({ createdAtMs: Date.UTC(2025, 3, 1) });
    writeThread(index, first, turnLines('t1', 'first', Date.UTC(2025, 3, 1, 1)));
    expect(await index.reconcile(home)).toEqual({ added: 0, updated: 0, skipped: [] });
    // Written in the same instant as the walk saw: the directory time may not have moved.
    const dir = path.dirname(writeThread(null, makeMeta({ createdAtMs: Date.UTC(2025, 3, 1, 2) }), turnLines('t2', 'same tick', Date.UTC(2025, 3, 1, 3))));
    const seenAt = fs.statSync(dir).mtime;
    fs.utimesSync(dir, seenAt, seenAt);
    expect(await index.reconcile(home)).toEqual({ added: 1, updated: 0, skipped: [] });
  });

  it('walks everything when its record of the last walk is unreadable', async () => {
    const index = await openIndex();
    writeThread(index, makeMeta(), turnLines('t1', 'indexed', 100));
    expect(await index.reconcile(home)).toEqual({ added: 0, updated: 0, skipped: [] });
    index.close();
    const db = openSqlite(path.join(home, 'state.sqlite'));
    db.prepare("UPDATE meta SET value = '{not json' WHERE key = 'rollout_dir_stamps'").run();
    db.close();
    const orphan = makeMeta({ createdAtMs: Date.UTC(2025, 6, 1) });
    const orphanDir = path.dirname(writeThread(null, orphan, turnLines('t2', 'orphan', Date.UTC(2025, 6, 1, 1))));
    ageDir(orphanDir);
    const reopened = await openIndex();
    expect(await reopened.reconcile(home)).toEqual({ added: 1, updated: 0, skipped: [] });
    expect(reopened.get(orphan.id)).toMatchObject({ preview: 'orphan' });
  });
});

describe('archive and lookup', () => {
  it('moves a rollout to the archive and back, with the index following', async () => {
    const index = await openIndex();
    const meta = makeMeta();
    const live = writeThread(index, meta, turnLines('t', 'archive me', 10));
    const archived = await moveToArchive(home, live, index);
    expect(archived).toBe(path.join(home, 'archived_sessions', path.basename(live)));
    expect(fs.existsSync(live)).toBe(false);
    expect(fs.existsSync(archived)).toBe(true);
    expect(index.get(meta.id)).toMatchObject({ archived: true, path: archived });
    expect(index.list().rows).toEqual([]);
    expect(index.list({ archived: true }).rows.map((r) => r.id)).toEqual([meta.id]);

    const back = await moveFromArchive(home, archived, index);
    expect(back).toBe(live);
    expect(fs.existsSync(live)).toBe(true);
    expect(index.get(meta.id)).toMatchObject({ archived: false, path: live });
  });

  it('finds a rollout through the index, by its UUIDv7 date, or by walking the directories', async () => {
    const index = await openIndex();
    const meta = makeMeta({ createdAtMs: Date.now() });
    const file = writeThread(index, meta, []);
    expect(await findRolloutPath(home, meta.id, index)).toBe(file);
    expect(await findRolloutPath(home, meta.id)).toBe(file);

    // An id that carries no date, created long ago: only a full walk finds it.
    const old = writeThread(null, makeMeta({ id: 'legacy-thread', createdAtMs: Date.UTC(2020, 0, 1) }), []);
    expect(await findRolloutPath(home, 'legacy-thread', index)).toBe(old);

    // A stale index path falls back to the disk.
    const moved = await moveToArchive(home, file);
    expect(await findRolloutPath(home, meta.id, index)).toBe(moved);

    expect(await findRolloutPath(home, 'no-such-thread', index)).toBeNull();
    expect(await findRolloutPath(home, '../etc/passwd', index)).toBeNull();
  });

  it('refuses to overwrite an existing file when moving', async () => {
    const live = writeThread(null, makeMeta(), []);
    fs.mkdirSync(path.join(home, 'archived_sessions'), { recursive: true });
    fs.writeFileSync(path.join(home, 'archived_sessions', path.basename(live)), 'occupied');
    await expect(moveToArchive(home, live)).rejects.toThrow(/already exists/);
    expect(fs.existsSync(live)).toBe(true);
  });
});
