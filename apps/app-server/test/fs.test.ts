/**
 * Contract tests of the fs/* methods (docs/app-server.md "Methods served") over in-memory
 * transports with the wire sniffer: every method on real files under the harness's temp cwd, the
 * reference's error texts, and fs/watch → fs/changed delivery, fs/unwatch and the end of a
 * connection's watches when it closes.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '@deputy/test-support';
import { startHarness, type Harness } from './support/harness.js';
import type { WireClient } from './support/wire-client.js';

let h: Harness;
let root: string;
beforeEach(async () => {
  h = await startHarness();
  root = join(h.temp.cwd, 'fs');
  mkdirSync(root);
});
afterEach(async () => {
  expect(h.validator.problems).toEqual([]);
  await h.close();
});

const NOT_FOUND = 'No such file or directory (os error 2)';
const RELATIVE = 'Invalid request: AbsolutePathBuf deserialized without a base path';

/** The error of a request that must fail. */
async function failure(client: WireClient, method: string, params: unknown): Promise<{ code: number; message: string }> {
  const response = await client.request(method, params);
  if (!('error' in response) || response.error === undefined) throw new Error(`${method} succeeded: ${JSON.stringify(response)}`);
  return { code: response.error.code, message: response.error.message };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Waits until a debounce window opened now has been flushed, on a watch of its own: every window
 * opened before it (by a change made before this call) ended first, since they share one length.
 */
async function nextDebounceWindowEnded(): Promise<void> {
  const probe = await h.connect();
  await probe.call('fs/watch', { watchId: 'probe', path: root });
  const marker = join(root, `probe-${Date.now()}.txt`);
  writeFileSync(marker, '');
  await probe.waitForNotification('fs/changed', (p) => (p.changedPaths as string[]).includes(marker));
}

/** The file watchers alive in this process (the server runs in it). */
function watcherCount(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'FSEventWrap').length;
}

describe('fs/readFile and fs/writeFile', () => {
  it('round-trips binary content through base64', async () => {
    const c = await h.connect();
    const bytes = Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 7) % 256));
    const path = join(root, 'blob.bin');
    expect(await c.call('fs/writeFile', { path, dataBase64: bytes.toString('base64') })).toEqual({});
    expect(readFileSync(path).equals(bytes)).toBe(true);
    const read = await c.call<{ dataBase64: string }>('fs/readFile', { path });
    expect(Buffer.from(read.dataBase64, 'base64').equals(bytes)).toBe(true);
    writeFileSync(path, '');
    expect(await c.call('fs/readFile', { path })).toEqual({ dataBase64: '' });
  });

  it('answers OS errors with -32603 and the OS text, and bad base64 with -32600', async () => {
    const c = await h.connect();
    expect(await failure(c, 'fs/readFile', { path: join(root, 'missing.txt') })).toEqual({ code: -32603, message: NOT_FOUND });
    expect(await failure(c, 'fs/readFile', { path: root })).toEqual({ code: -32603, message: 'Is a directory (os error 21)' });
    expect(await failure(c, 'fs/writeFile', { path: join(root, 'no/such/dir.txt'), dataBase64: '' })).toEqual({ code: -32603, message: NOT_FOUND });
    expect(await failure(c, 'fs/writeFile', { path: join(root, 'x'), dataBase64: 'aGk@' })).toEqual({
      code: -32600,
      message: 'fs/writeFile requires valid base64 dataBase64: Invalid symbol 64, offset 3.',
    });
    expect((await failure(c, 'fs/writeFile', { path: join(root, 'x'), dataBase64: 'aGk' })).code).toBe(-32600);
    expect(existsSync(join(root, 'x'))).toBe(false);
  });
});

describe('relative paths', () => {
  it('are refused by every method with the reference text, and the server keeps serving', async () => {
    const c = await h.connect();
    const calls: Array<[string, Record<string, unknown>]> = [
      ['fs/readFile', { path: 'relative/path.txt' }],
      ['fs/writeFile', { path: 'a.txt', dataBase64: '' }],
      ['fs/createDirectory', { path: 'dir' }],
      ['fs/getMetadata', { path: '.' }],
      ['fs/readDirectory', { path: 'sub' }],
      ['fs/remove', { path: 'a.txt' }],
      ['fs/copy', { sourcePath: 'a.txt', destinationPath: join(root, 'b.txt') }],
      ['fs/copy', { sourcePath: join(root, 'a.txt'), destinationPath: 'b.txt' }],
      ['fs/watch', { watchId: 'w', path: 'sub' }],
    ];
    for (const [method, params] of calls) expect(await failure(c, method, params), method).toEqual({ code: -32600, message: RELATIVE });
    writeFileSync(join(root, 'ok.txt'), 'ok');
    expect(await c.call('fs/readFile', { path: join(root, 'ok.txt') })).toEqual({ dataBase64: Buffer.from('ok').toString('base64') });
  });
});

describe('fs/createDirectory', () => {
  it('creates parents by default and refuses a missing parent or an existing path without recursive', async () => {
    const c = await h.connect();
    expect(await c.call('fs/createDirectory', { path: join(root, 'a/b/c') })).toEqual({});
    expect(statSync(join(root, 'a/b/c')).isDirectory()).toBe(true);
    expect(await c.call('fs/createDirectory', { path: join(root, 'a/b/c'), recursive: null })).toEqual({});
    expect(await failure(c, 'fs/createDirectory', { path: join(root, 'x/y'), recursive: false })).toEqual({ code: -32603, message: NOT_FOUND });
    expect(await failure(c, 'fs/createDirectory', { path: join(root, 'a'), recursive: false })).toEqual({
      code: -32603,
      message: 'File exists (os error 17)',
    });
    expect(await c.call('fs/createDirectory', { path: join(root, 'single'), recursive: false })).toEqual({});
    expect(statSync(join(root, 'single')).isDirectory()).toBe(true);
  });
});

describe('fs/getMetadata', () => {
  it('describes files, directories and symlinks, with 0 for what the OS does not know', async () => {
    const c = await h.connect();
    const file = join(root, 'note.txt');
    writeFileSync(file, 'hello');
    symlinkSync(file, join(root, 'link'));
    const meta = await c.call<Record<string, unknown>>('fs/getMetadata', { path: file });
    expect(meta).toMatchObject({ isDirectory: false, isFile: true, isSymlink: false, modifiedAtMs: Math.floor(statSync(file).mtimeMs) });
    expect(meta.createdAtMs).toEqual(expect.any(Number));
    expect(meta.createdAtMs as number).toBeGreaterThanOrEqual(0);
    expect(await c.call('fs/getMetadata', { path: root })).toMatchObject({ isDirectory: true, isFile: false, isSymlink: false });
    expect(await c.call('fs/getMetadata', { path: join(root, 'link') })).toMatchObject({ isDirectory: false, isFile: true, isSymlink: true });
    expect(await failure(c, 'fs/getMetadata', { path: join(root, 'missing') })).toEqual({ code: -32603, message: NOT_FOUND });
  });
});

describe('fs/readDirectory', () => {
  it('lists the direct entries by name, links as what they resolve to', async () => {
    const c = await h.connect();
    mkdirSync(join(root, 'sub/deeper'), { recursive: true });
    writeFileSync(join(root, 'note.txt'), 'x');
    writeFileSync(join(root, 'sub/inner.txt'), 'x');
    symlinkSync(join(root, 'sub'), join(root, 'dir-link'));
    symlinkSync(join(root, 'nowhere'), join(root, 'dangling'));
    const { entries } = await c.call<{ entries: Array<{ fileName: string }> }>('fs/readDirectory', { path: root });
    expect([...entries].sort((a, b) => a.fileName.localeCompare(b.fileName))).toEqual([
      { fileName: 'dangling', isDirectory: false, isFile: false },
      { fileName: 'dir-link', isDirectory: true, isFile: false },
      { fileName: 'note.txt', isDirectory: false, isFile: true },
      { fileName: 'sub', isDirectory: true, isFile: false },
    ]);
    expect(await failure(c, 'fs/readDirectory', { path: join(root, 'missing') })).toEqual({ code: -32603, message: NOT_FOUND });
    expect(await failure(c, 'fs/readDirectory', { path: join(root, 'note.txt') })).toEqual({ code: -32603, message: 'Not a directory (os error 20)' });
  });
});

describe('fs/remove', () => {
  it('removes files and whole trees by default and ignores a missing path unless force is false', async () => {
    const c = await h.connect();
    mkdirSync(join(root, 'tree/a/b'), { recursive: true });
    writeFileSync(join(root, 'tree/a/b/f.txt'), 'x');
    writeFileSync(join(root, 'file.txt'), 'x');
    expect(await c.call('fs/remove', { path: join(root, 'file.txt') })).toEqual({});
    expect(await c.call('fs/remove', { path: join(root, 'tree') })).toEqual({});
    expect(existsSync(join(root, 'file.txt')) || existsSync(join(root, 'tree'))).toBe(false);
    expect(await c.call('fs/remove', { path: join(root, 'does-not-exist') })).toEqual({});
    expect(await failure(c, 'fs/remove', { path: join(root, 'does-not-exist'), force: false })).toEqual({ code: -32603, message: NOT_FOUND });
  });

  it('removes only an empty directory without recursive, and a link rather than its target', async () => {
    const c = await h.connect();
    mkdirSync(join(root, 'full'));
    writeFileSync(join(root, 'full/f.txt'), 'x');
    mkdirSync(join(root, 'empty'));
    expect(await failure(c, 'fs/remove', { path: join(root, 'full'), recursive: false })).toEqual({
      code: -32603,
      message: 'Directory not empty (os error 39)',
    });
    expect(await c.call('fs/remove', { path: join(root, 'empty'), recursive: false })).toEqual({});
    symlinkSync(join(root, 'full'), join(root, 'link'));
    expect(await c.call('fs/remove', { path: join(root, 'link') })).toEqual({});
    expect(existsSync(join(root, 'full/f.txt'))).toBe(true);
  });
});

describe('fs/copy', () => {
  it('copies a file, and a directory only with recursive: true', async () => {
    const c = await h.connect();
    mkdirSync(join(root, 'src/nested'), { recursive: true });
    writeFileSync(join(root, 'src/a.txt'), 'a');
    writeFileSync(join(root, 'src/nested/b.bin'), Buffer.from([0, 255, 1]));
    symlinkSync('a.txt', join(root, 'src/link'));
    expect(await c.call('fs/copy', { sourcePath: join(root, 'src/a.txt'), destinationPath: join(root, 'copy.txt') })).toEqual({});
    expect(readFileSync(join(root, 'copy.txt'), 'utf8')).toBe('a');
    expect(await failure(c, 'fs/copy', { sourcePath: join(root, 'src'), destinationPath: join(root, 'dst') })).toEqual({
      code: -32600,
      message: 'fs/copy requires recursive: true when sourcePath is a directory',
    });
    expect(existsSync(join(root, 'dst'))).toBe(false);
    expect(await c.call('fs/copy', { sourcePath: join(root, 'src'), destinationPath: join(root, 'dst'), recursive: true })).toEqual({});
    expect(readFileSync(join(root, 'dst/nested/b.bin')).equals(Buffer.from([0, 255, 1]))).toBe(true);
    expect(lstatSync(join(root, 'dst/link')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(root, 'dst/link'))).toBe('a.txt');
  });

  it('refuses to copy a directory into itself and reports a missing source as an OS error', async () => {
    const c = await h.connect();
    mkdirSync(join(root, 'src'));
    expect(await failure(c, 'fs/copy', { sourcePath: join(root, 'src'), destinationPath: join(root, 'src/inner/copy'), recursive: true })).toEqual({
      code: -32600,
      message: 'fs/copy cannot copy a directory to itself or one of its descendants',
    });
    expect(await failure(c, 'fs/copy', { sourcePath: join(root, 'missing'), destinationPath: join(root, 'x') })).toEqual({
      code: -32603,
      message: NOT_FOUND,
    });
    expect(await c.call('fs/copy', { sourcePath: join(root, 'src'), destinationPath: join(root, 'src-2'), recursive: true })).toEqual({});
  });
});

describe('fs/watch', () => {
  it('answers the canonical path, then sends debounced fs/changed with absolute paths to the caller only', async () => {
    const a = await h.connect();
    const b = await h.connect();
    symlinkSync(root, join(h.temp.cwd, 'root-link'));
    expect(await a.call('fs/watch', { watchId: 'w1', path: join(h.temp.cwd, 'root-link') })).toEqual({ path: root });
    writeFileSync(join(root, 'one.txt'), '1');
    writeFileSync(join(root, 'two.txt'), '2');
    const changed = await a.waitForNotification('fs/changed');
    expect(changed.params.watchId).toBe('w1');
    expect(changed.params.changedPaths).toEqual(expect.arrayContaining([join(root, 'one.txt'), join(root, 'two.txt')]));
    expect(new Set(changed.params.changedPaths as string[]).size).toBe((changed.params.changedPaths as string[]).length);
    // A copy for b would have been sent with a's, so it would arrive before b's next response.
    await b.call('fs/getMetadata', { path: root });
    expect(b.notifications('fs/changed')).toEqual([]);
  });

  it('watches a file, including one that does not exist yet', async () => {
    const c = await h.connect();
    const file = join(root, 'watched.txt');
    const later = join(root, 'later.txt');
    writeFileSync(file, 'v1');
    expect(await c.call('fs/watch', { watchId: 'file', path: file })).toEqual({ path: file });
    expect(await c.call('fs/watch', { watchId: 'later', path: later })).toEqual({ path: later });
    writeFileSync(join(root, 'unrelated.txt'), 'x');
    writeFileSync(file, 'v2');
    const changed = await c.waitForNotification('fs/changed', (p) => p.watchId === 'file');
    expect(changed.params.changedPaths).toEqual([file]);
    writeFileSync(later, 'here');
    const appeared = await c.waitForNotification('fs/changed', (p) => p.watchId === 'later');
    expect(appeared.params.changedPaths).toEqual([later]);
    expect(await failure(c, 'fs/watch', { watchId: 'gone', path: join(root, 'no/such/file') })).toEqual({ code: -32603, message: NOT_FOUND });
  });

  it('reports the watched directory itself when it is removed', async () => {
    const c = await h.connect();
    const dir = join(root, 'doomed');
    mkdirSync(dir);
    await c.call('fs/watch', { watchId: 'dir', path: dir });
    rmSync(dir, { recursive: true });
    const changed = await c.waitForNotification('fs/changed');
    expect(changed.params).toEqual({ watchId: 'dir', changedPaths: [dir] });
  });

  it('refuses a watchId the connection already uses, and allows it on another connection', async () => {
    const a = await h.connect();
    const b = await h.connect();
    await a.call('fs/watch', { watchId: 'same', path: root });
    expect(await failure(a, 'fs/watch', { watchId: 'same', path: h.temp.cwd })).toEqual({ code: -32600, message: 'watchId already exists: same' });
    expect(await b.call('fs/watch', { watchId: 'same', path: root })).toEqual({ path: root });
    await a.call('fs/unwatch', { watchId: 'same' });
    expect(await a.call('fs/watch', { watchId: 'same', path: root })).toEqual({ path: root });
  });
});

describe('fs/unwatch', () => {
  it('stops notifications, is idempotent and ignores unknown ids', async () => {
    const c = await h.connect();
    await c.call('fs/watch', { watchId: 'w1', path: root });
    writeFileSync(join(root, 'first.txt'), '1');
    await c.waitForNotification('fs/changed');
    // A change still inside the debounce window when unwatched is never reported either.
    writeFileSync(join(root, 'pending.txt'), '1');
    await sleep(20);
    expect(await c.call('fs/unwatch', { watchId: 'w1' })).toEqual({});
    writeFileSync(join(root, 'second.txt'), '2');
    await nextDebounceWindowEnded();
    await c.call('fs/getMetadata', { path: root });
    expect(c.notifications('fs/changed')).toHaveLength(1);
    expect(await c.call('fs/unwatch', { watchId: 'w1' })).toEqual({});
    expect(await c.call('fs/unwatch', { watchId: 'never-existed' })).toEqual({});
  });

  it('does not end a watch of another connection', async () => {
    const a = await h.connect();
    const b = await h.connect();
    await a.call('fs/watch', { watchId: 'mine', path: root });
    expect(await b.call('fs/unwatch', { watchId: 'mine' })).toEqual({});
    writeFileSync(join(root, 'still.txt'), 'x');
    expect((await a.waitForNotification('fs/changed')).params.changedPaths).toEqual([join(root, 'still.txt')]);
  });
});

describe('connection close', () => {
  it('ends the watches of the closed connection only', async () => {
    const a = await h.connect();
    const b = await h.connect();
    const baseline = watcherCount();
    await a.call('fs/watch', { watchId: 'w1', path: root });
    await a.call('fs/watch', { watchId: 'w2', path: h.temp.cwd });
    await b.call('fs/watch', { watchId: 'w1', path: root });
    expect(watcherCount()).toBe(baseline + 3);
    await a.close();
    await waitFor(() => watcherCount() === baseline + 1, 5_000, 'the closed connection’s watchers to close');
    writeFileSync(join(root, 'after-close.txt'), 'x');
    expect((await b.waitForNotification('fs/changed')).params.changedPaths).toEqual([join(root, 'after-close.txt')]);
    await b.close();
    await waitFor(() => watcherCount() === baseline, 5_000, 'every watcher to close');
  });
});
