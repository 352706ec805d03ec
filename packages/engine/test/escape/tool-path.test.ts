/**
 * The sandbox escape suite through the real tool path: a scripted model calls `exec_command`
 * and `apply_patch` in real turns of an engine configured by `sandbox_mode`, under real
 * bubblewrap. Each way out (a write outside the workspace, into `.git`, through a symlink that
 * points outside, a connection to a host listener) must fail under workspace-write and read-only
 * and succeed under danger-full-access; the suite checks the disk, the host listener and what the
 * model was told. Policy `never`, so nothing is asked and every failure goes back to the model.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxMode } from '@deputy/protocol';
import { waitFor } from '../helpers/engine.js';
import {
  addFilePatch,
  completedItems,
  CONFINED_TMP_TOML,
  execCall,
  patchCall,
  requireBwrap,
  SafetyHarness,
  unfinishedItems,
  WORKSPACE_WRITE,
} from '../safety/harness.js';

let server: net.Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  await requireBwrap();
  server = net.createServer((socket) => {
    connections += 1;
    socket.end('hello from the host\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

const MODES: { mode: SandboxMode; confined: boolean }[] = [
  { mode: 'workspace-write', confined: true },
  { mode: 'read-only', confined: true },
  { mode: 'danger-full-access', confined: false },
];

describe.each(MODES)('with sandbox_mode = $mode', ({ mode, confined }) => {
  let h: SafetyHarness;
  const can = (what: string) => `${confined ? 'cannot' : 'can'} ${what}`;

  beforeAll(async () => {
    h = await SafetyHarness.start({ approvalPolicy: 'never', sandbox: mode, extraToml: CONFINED_TMP_TOML });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** A thread in a fresh workspace holding a `.git` directory and a `link` to the outside. */
  async function prepared() {
    const cwd = await h.newWorkspace();
    await mkdir(join(cwd, '.git'));
    await symlink(h.outside, join(cwd, 'link'));
    return { cwd, thread: await h.startThread({ cwd }) };
  }

  it(`${can('write outside the workspace')} with exec_command`, async () => {
    const { thread } = await prepared();
    const target = join(h.outside, `w-${h.nextId()}`);
    const result = await h.runTurn(thread, [execCall(`echo escaped > '${target}'`, { login: undefined })]);
    expect(result.turn.status).toBe('completed');
    expect(result.asked).toEqual([]);
    expect(existsSync(target)).toBe(!confined);
    const [item] = completedItems(result.events, 'commandExecution');
    expect(item?.status).toBe(confined ? 'failed' : 'completed');
    if (confined) expect(result.toldModel[0]).toMatch(/Process exited with code [1-9][\s\S]*Read-only file system/);
    else expect(result.toldModel[0]).toMatch(/Process exited with code 0/);
    expect(unfinishedItems(result.events)).toEqual([]);
  });

  it(`${can('write into .git of the workspace')} with exec_command`, async () => {
    const { cwd, thread } = await prepared();
    const name = `config-${h.nextId()}`;
    const result = await h.runTurn(thread, [execCall(`echo tampered > .git/${name}`)]);
    expect(existsSync(join(cwd, '.git', name))).toBe(!confined);
    expect(result.toldModel[0]).toMatch(confined ? /Read-only file system/ : /Process exited with code 0/);
  });

  it(`${can('write through a symlink that points outside')} with exec_command`, async () => {
    const { thread } = await prepared();
    const name = `via-link-${h.nextId()}`;
    const result = await h.runTurn(thread, [execCall(`echo via-link > link/${name}`)]);
    expect(existsSync(join(h.outside, name))).toBe(!confined);
    expect(result.toldModel[0]).toMatch(confined ? /Read-only file system/ : /Process exited with code 0/);
  });

  it(`${can('change a file outside through a file symlink in the workspace')} with exec_command or apply_patch`, async () => {
    const { cwd, thread } = await prepared();
    const viaExec = join(h.outside, `target-${h.nextId()}.txt`);
    const viaPatch = join(h.outside, `target-${h.nextId()}.txt`);
    await writeFile(viaExec, 'original\n');
    await writeFile(viaPatch, 'original\n');
    await symlink(viaExec, join(cwd, 'exec-link.txt'));
    await symlink(viaPatch, join(cwd, 'patch-link.txt'));
    const update = ['*** Begin Patch', '*** Update File: patch-link.txt', '@@', '-original', '+changed', '*** End Patch'].join('\n');
    const result = await h.runTurn(thread, [execCall('echo changed > exec-link.txt'), patchCall(update)]);
    const expected = confined ? 'original\n' : 'changed\n';
    expect(await readFile(viaExec, 'utf8')).toBe(expected);
    expect(await readFile(viaPatch, 'utf8')).toBe(expected);
    expect(result.toldModel[1]).toMatch(confined ? /patch rejected/ : /^Exit code: 0\n/);
  });

  it(`${can('connect to a listener on 127.0.0.1')} with exec_command`, async () => {
    const { thread } = await prepared();
    const before = connections;
    const result = await h.runTurn(thread, [execCall(`exec 3<>/dev/tcp/127.0.0.1/${port} && head -n 1 <&3`)]);
    if (confined) {
      expect(result.toldModel[0]).toMatch(/Process exited with code [1-9]/);
      expect(result.toldModel[0]).not.toContain('hello from the host');
      expect(connections).toBe(before);
    } else {
      expect(result.toldModel[0]).toMatch(/Process exited with code 0[\s\S]*hello from the host/);
      await waitFor(() => connections > before, 5_000, 'the host listener to see the connection');
    }
  });

  it(`${mode === 'read-only' ? 'cannot' : 'can'} write inside the workspace with exec_command`, async () => {
    const { cwd, thread } = await prepared();
    await h.runTurn(thread, [execCall('echo mine > inside.txt')]);
    expect(existsSync(join(cwd, 'inside.txt'))).toBe(mode !== 'read-only');
  });

  it(`${can('apply a patch outside the writable roots')} (absolute path, policy never)`, async () => {
    const { thread } = await prepared();
    const target = join(h.outside, `p-${h.nextId()}.txt`);
    const result = await h.runTurn(thread, [patchCall(addFilePatch(target, 'patched'))]);
    expect(result.asked).toEqual([]);
    expect(existsSync(target)).toBe(!confined);
    const [item] = completedItems(result.events, 'fileChange');
    expect(item?.status).toBe(confined ? 'declined' : 'completed');
    if (confined) expect(result.toldModel[0]).toMatch(/^Exit code: 1\n[\s\S]*patch rejected: writing outside of the writable roots/);
    else expect(result.toldModel[0]).toMatch(/^Exit code: 0\n/);
    expect(unfinishedItems(result.events)).toEqual([]);
  });

  it(`${can('apply a patch through a symlink that points outside')}`, async () => {
    const { thread } = await prepared();
    const name = `pl-${h.nextId()}.txt`;
    const result = await h.runTurn(thread, [patchCall(addFilePatch(`link/${name}`, 'through the link'))]);
    expect(existsSync(join(h.outside, name))).toBe(!confined);
    expect(result.toldModel[0]).toMatch(confined ? /patch rejected/ : /^Exit code: 0\n/);
  });

  it(`${can('apply a patch into .git of the workspace')}`, async () => {
    const { cwd, thread } = await prepared();
    const name = `pg-${h.nextId()}`;
    const result = await h.runTurn(thread, [patchCall(addFilePatch(`.git/${name}`, 'hook'))]);
    expect(existsSync(join(cwd, '.git', name))).toBe(!confined);
    expect(result.toldModel[0]).toMatch(confined ? /patch rejected/ : /^Exit code: 0\n/);
  });

  it(`${mode === 'read-only' ? 'refuses' : 'applies'} a patch inside the workspace`, async () => {
    const { cwd, thread } = await prepared();
    const result = await h.runTurn(thread, [patchCall(addFilePatch('notes.txt', 'inside'))]);
    expect(existsSync(join(cwd, 'notes.txt'))).toBe(mode !== 'read-only');
    if (mode !== 'read-only') expect(await readFile(join(cwd, 'notes.txt'), 'utf8')).toBe('inside\n');
    else expect(result.toldModel[0]).toMatch(/patch rejected: writing outside of the writable roots \(read-only\)/);
  });
});

describe('network access under workspace-write', () => {
  let h: SafetyHarness;
  beforeAll(async () => {
    h = await SafetyHarness.start({ approvalPolicy: 'never', sandbox: 'workspace-write', extraToml: CONFINED_TMP_TOML });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('reaches a host listener when sandbox_workspace_write.network_access is true, while writes stay confined', async () => {
    const thread = await h.startThread({ sandbox: { ...WORKSPACE_WRITE, networkAccess: true } });
    const before = connections;
    const target = join(h.outside, `n-${h.nextId()}`);
    const result = await h.runTurn(thread, [
      execCall(`exec 3<>/dev/tcp/127.0.0.1/${port} && head -n 1 <&3`),
      execCall(`touch '${target}'`),
    ]);
    expect(result.toldModel[0]).toMatch(/Process exited with code 0[\s\S]*hello from the host/);
    await waitFor(() => connections > before, 5_000, 'the host listener to see the connection');
    expect(result.toldModel[1]).toMatch(/Read-only file system/);
    expect(existsSync(target)).toBe(false);
  });
});
