import { mkdir, mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxPolicy } from '@deputy/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeSandbox, sandboxCovers } from '../../src/exec/sandbox-cover.js';

const FULL: SandboxPolicy = { type: 'danger-full-access' };
const RO: SandboxPolicy = { type: 'read-only', networkAccess: false };
const RO_NET: SandboxPolicy = { type: 'read-only', networkAccess: true };
function ww(extra: Partial<Extract<SandboxPolicy, { type: 'workspace-write' }>> = {}): SandboxPolicy {
  return { type: 'workspace-write', writableRoots: [], networkAccess: false, excludeTmpdirEnvVar: true, excludeSlashTmp: true, ...extra };
}

let ws: string;
let other: string;
beforeAll(async () => {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'cover-')));
  ws = join(base, 'ws');
  other = join(base, 'other');
  await mkdir(join(ws, 'sub'), { recursive: true });
  await mkdir(join(ws, '.git'));
  await mkdir(other);
});

describe('sandboxCovers', () => {
  it.each([
    ['danger-full-access', FULL, 'danger-full-access', FULL, true],
    ['danger-full-access', FULL, 'workspace-write', ww(), true],
    ['workspace-write', ww(), 'danger-full-access', FULL, false],
    ['read-only', RO, 'danger-full-access', FULL, false],
    ['read-only', RO, 'workspace-write', ww(), false],
    ['workspace-write', ww(), 'read-only', RO, true],
    ['read-only', RO, 'read-only', RO, true],
    ['read-only', RO, 'read-only with network', RO_NET, false],
    ['workspace-write', ww(), 'workspace-write with network', ww({ networkAccess: true }), false],
    ['workspace-write with network', ww({ networkAccess: true }), 'workspace-write', ww(), true],
    ['workspace-write without /tmp', ww(), 'workspace-write with /tmp', ww({ excludeSlashTmp: false }), false],
    ['workspace-write with /tmp', ww({ excludeSlashTmp: false }), 'workspace-write without /tmp', ww(), true],
  ] as const)('%s covers %s: %s', (_o, outer, _i, inner, expected) => {
    expect(sandboxCovers({ policy: outer, cwd: ws }, { policy: inner, cwd: ws })).toBe(expected);
  });

  it('compares writable roots by inclusion, the cwd being the first root', () => {
    expect(sandboxCovers({ policy: ww(), cwd: ws }, { policy: ww(), cwd: join(ws, 'sub') })).toBe(true);
    expect(sandboxCovers({ policy: ww(), cwd: join(ws, 'sub') }, { policy: ww(), cwd: ws })).toBe(false);
    expect(sandboxCovers({ policy: ww(), cwd: ws }, { policy: ww(), cwd: other })).toBe(false);
    expect(sandboxCovers({ policy: ww({ writableRoots: [other] }), cwd: ws }, { policy: ww({ writableRoots: [other] }), cwd: ws })).toBe(true);
    expect(sandboxCovers({ policy: ww(), cwd: ws }, { policy: ww({ writableRoots: [other] }), cwd: ws })).toBe(false);
  });

  it('does not cover a root that makes a protected entry of the outer sandbox writable', () => {
    expect(sandboxCovers({ policy: ww(), cwd: ws }, { policy: ww({ writableRoots: [join(ws, '.git')] }), cwd: ws })).toBe(false);
  });

  it('names a policy by its mode and network', () => {
    expect([FULL, RO, RO_NET, ww({ networkAccess: true })].map(describeSandbox)).toEqual([
      'danger-full-access',
      'read-only',
      'read-only with network',
      'workspace-write with network',
    ]);
  });
});
