/**
 * Contract tests of the 0.171 process-local methods over the real server (real engine and files
 * under a temp home, the scripted model), every message checked against our schemas and the 0.171
 * reference: `server/diagnostics` (real counters and process facts), `rollout/compress`,
 * `skills/extraRoots/set` (the roots reach `skills/list` and the model request) and
 * `feedback/save` (the ZIP bundle on disk, read back here with a reader of the format).
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '@deputy/test-support';
import { harnessPerTest, isolateUserHome, type Harness } from './support/harness.js';
import { runTurn, startThread } from './support/turns.js';
import type { WireClient } from './support/wire-client.js';

const CURRENT = { experimentalApi: true, requestAttestation: false, optOutNotificationMethods: ['remoteControl/status/changed'] };
const STABLE = { requestAttestation: false, optOutNotificationMethods: ['remoteControl/status/changed'] };

const harness = harnessPerTest();
isolateUserHome();
let h: Harness;
let outDir: string;
beforeEach(async () => {
  h = await harness();
  outDir = mkdtempSync(join(tmpdir(), 'deputy-feedback-'));
});
afterEach(() => rmSync(outDir, { recursive: true, force: true }));

const errorOf = async (client: WireClient, method: string, params: unknown) => (await client.request(method, params)).error;

/** The files of a ZIP archive (central directory, stored or deflated entries), by name. */
function unzip(bytes: Buffer): Map<string, Buffer> {
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(end).toBeGreaterThanOrEqual(0);
  const files = new Map<string, Buffer>();
  let at = bytes.readUInt32LE(end + 16);
  for (let i = 0; i < bytes.readUInt16LE(end + 10); i++) {
    expect(bytes.readUInt32LE(at)).toBe(0x02014b50);
    const method = bytes.readUInt16LE(at + 10);
    const packed = bytes.readUInt32LE(at + 20);
    const size = bytes.readUInt32LE(at + 24);
    const nameLength = bytes.readUInt16LE(at + 28);
    const local = bytes.readUInt32LE(at + 42);
    const name = bytes.toString('utf8', at + 46, at + 46 + nameLength);
    const dataAt = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    const raw = bytes.subarray(dataAt, dataAt + packed);
    const data = method === 8 ? inflateRawSync(raw) : raw;
    expect(data.length).toBe(size);
    files.set(name, data);
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return files;
}

describe('server/diagnostics and rollout/compress', () => {
  it('reports live counters and this process, and acknowledges rollout/compress; both need experimentalApi', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    await h.connect({ capabilities: CURRENT });
    await startThread(client);
    const result = await client.call<{ gauges: Array<{ name: string; value: number }>; process: { id: number; residentMemoryBytes: number; physicalFootprintBytes: null } }>(
      'server/diagnostics',
      {},
    );
    const gauges = Object.fromEntries(result.gauges.map((g) => [g.name, g.value]));
    // The server runs in this test's process: its pid and its memory are this process's.
    expect(result.process.id).toBe(process.pid);
    expect(result.process.residentMemoryBytes).toBeGreaterThan(10 * 1024 * 1024);
    expect(result.process.physicalFootprintBytes).toBeNull();
    expect(gauges).toMatchObject({ 'app.connections': 2, 'core.threads.live': 1 });
    // The diagnostics request itself is in flight while it is answered.
    expect(gauges['app.requests.in_flight']).toBeGreaterThanOrEqual(1);
    expect(gauges['app.outbound.queued']).toBeGreaterThanOrEqual(0);
    await startThread(client);
    const again = await client.call<{ gauges: Array<{ name: string; value: number }> }>('server/diagnostics', {});
    expect(again.gauges.find((g) => g.name === 'core.threads.live')?.value).toBe(2);

    expect(await client.call('rollout/compress', null)).toEqual({});
    expect(await client.call('rollout/compress', undefined)).toEqual({});
    const stable = await h.connect({ capabilities: STABLE });
    for (const [method, params] of [['server/diagnostics', {}], ['rollout/compress', null]] as const) {
      expect(await errorOf(stable, method, params)).toMatchObject({ code: -32600, message: `${method} requires experimentalApi capability` });
    }
  });
});

describe('skills/extraRoots/set', () => {
  it('adds roots that skills/list and the turns then read, and replaces them on the next call', async () => {
    const client = await h.connect({ capabilities: STABLE });
    const root = join(outDir, 'extra');
    const skill = join(root, 'audit', 'SKILL.md');
    await mkdir(join(root, 'audit'), { recursive: true });
    await writeFile(skill, '---\nname: audit\ndescription: Audit the dependencies\n---\nRun the audit.\n');
    const names = async () =>
      (await client.call<{ data: Array<{ skills: Array<{ name: string; scope: string; path: string }> }> }>('skills/list', { cwds: [h.temp.cwd] })).data[0]?.skills;
    expect(await names()).toEqual([]);

    expect(await client.call('skills/extraRoots/set', { extraRoots: [root, root] })).toEqual({});
    expect(await names()).toEqual([expect.objectContaining({ name: 'audit', scope: 'user', path: skill, enabled: true })]);
    const { id } = await startThread(client, { cwd: h.temp.cwd });
    await runTurn(client, id, 'hello');
    const request = h.model.requests.filter((r: RecordedRequest) => r.wire === 'responses').at(-1);
    expect(JSON.stringify(request?.body.input)).toContain(`- audit: Audit the dependencies (file: ${skill})`);

    expect(await client.call('skills/extraRoots/set', { extraRoots: [] })).toEqual({});
    expect(await names()).toEqual([]);
    expect((await errorOf(client, 'skills/extraRoots/set', { extraRoots: ['relative/dir'] }))?.code).toBe(-32600);
  });
});

describe('feedback/save', () => {
  it('writes a ZIP bundle with the report and, with includeLogs, the thread rollout and extra files; nothing else', async () => {
    const client = await h.connect({ capabilities: STABLE });
    const { id } = await startThread(client);
    await runTurn(client, id, 'hello');
    const extra = join(outDir, 'client.log');
    await writeFile(extra, 'client side log\n');
    const savePath = join(outDir, 'feedback.zip');
    const result = await client.call('feedback/save', {
      classification: 'bug',
      savePath,
      threadId: id,
      includeLogs: true,
      reason: 'it broke',
      tags: { surface: 'tui' },
      extraLogFiles: [extra, join(outDir, 'missing.log')],
    });
    expect(result).toEqual({ savedPath: savePath, threadId: id, promptHash: null });
    expect(statSync(savePath).mode & 0o777).toBe(0o600);
    const files = unzip(await readFile(savePath));
    const rollout = (await client.call<{ thread: { path: string } }>('thread/read', { threadId: id })).thread.path;
    const rolloutName = rollout.split('/').at(-1) as string;
    expect([...files.keys()]).toEqual(['report.json', `attachments/0000/${rolloutName}`, 'attachments/0001/client.log', 'manifest.json']);
    const report = JSON.parse(files.get('report.json')?.toString() ?? '{}') as Record<string, unknown>;
    expect(report).toMatchObject({
      message: `[Bug]: Deputy session ${id}`,
      exception: { values: [{ type: `[Bug]: Deputy session ${id}`, value: 'it broke' }] },
      tags: { surface: 'tui', classification: 'bug', reason: 'it broke', thread_id: id },
      omitted_log_files: [join(outDir, 'missing.log')],
    });
    expect(files.get(`attachments/0000/${rolloutName}`)?.equals(await readFile(rollout))).toBe(true);
    expect(files.get('attachments/0001/client.log')?.toString()).toBe('client side log\n');
    expect(JSON.parse(files.get('manifest.json')?.toString() ?? '[]')).toEqual([
      { entry: `attachments/0000/${rolloutName}`, filename: rolloutName, contentType: 'application/x-ndjson' },
      { entry: 'attachments/0001/client.log', filename: 'client.log', contentType: 'text/plain' },
    ]);
  });

  it('names a thread when none is given, keeps logs out unless asked, and refuses a used or relative path', async () => {
    const client = await h.connect({ capabilities: STABLE });
    const savePath = join(outDir, 'plain.zip');
    const result = await client.call<{ threadId: string }>('feedback/save', { classification: 'good_result', savePath, extraLogFiles: [savePath] });
    expect(result.threadId).toMatch(/^no-active-thread-[0-9a-f-]{36}$/);
    const files = unzip(await readFile(savePath));
    expect([...files.keys()]).toEqual(['report.json', 'manifest.json']);
    expect(JSON.parse(files.get('report.json')?.toString() ?? '{}')).toMatchObject({ message: `[Good_result]: Deputy session ${result.threadId}` });
    expect(JSON.parse(files.get('report.json')?.toString() ?? '{}')).not.toHaveProperty('exception');

    const before = await readFile(savePath);
    expect(await errorOf(client, 'feedback/save', { classification: 'bug', savePath })).toEqual({
      code: -32603,
      message: 'failed to save feedback: feedback save path already exists',
    });
    expect((await readFile(savePath)).equals(before)).toBe(true);
    expect(await errorOf(client, 'feedback/save', { classification: 'bug', savePath: 'relative.zip' })).toEqual({
      code: -32600,
      message: 'feedback savePath must be an absolute host path',
    });
    expect(existsSync(join(h.temp.cwd, 'relative.zip'))).toBe(false);
    expect((await errorOf(client, 'feedback/save', { classification: 'bug', savePath: join(outDir, 'no', 'such', 'dir.zip') }))?.code).toBe(-32603);
  });
});
