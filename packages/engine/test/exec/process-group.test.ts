/**
 * Process groups on the host: a group with a running member is alive; a group whose only member
 * is a zombie (exited, never reaped) exists for `kill(-pgid, 0)` but has no live member, which is
 * what a kill waits for; a group that is gone is neither; a reading of `/proc` shared by callers
 * never hides a group started after it. Real processes, killed by PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { groupHasLiveMember, signalProcessGroup } from '../../src/exec/process-group.js';

const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** The first line `child` prints. */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(text.split('\n')[0] as string);
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`exited with ${code} before printing`)));
  });
}

const stateOf = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]?.[0];

describe('process groups', () => {
  it('tells a running group, a zombie-only group and a gone group apart', async () => {
    // A parent that never reaps: its child leads a new group, prints nothing and exits at once.
    const parent = spawn('perl', ['-e', '$| = 1; my $p = fork(); if (!$p) { setpgrp(0, 0); exit 0 } print "$p\\n"; sleep 30'], { stdio: ['ignore', 'pipe', 'inherit'] });
    started.push(parent);
    const zombie = Number(await firstLine(parent));
    for (let i = 0; i < 200 && stateOf(zombie) !== 'Z'; i++) await new Promise((r) => setTimeout(r, 10));
    expect(stateOf(zombie)).toBe('Z');
    expect(signalProcessGroup(zombie, 0)).toBe(true);
    expect(groupHasLiveMember(zombie)).toBe(false);

    const running = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    started.push(running);
    const pgid = running.pid as number;
    expect(groupHasLiveMember(pgid)).toBe(true);
    expect(signalProcessGroup(pgid, 'SIGKILL')).toBe(true);
    await new Promise((resolve) => running.once('exit', resolve));
    expect(groupHasLiveMember(pgid)).toBe(false);
    expect(signalProcessGroup(pgid, 0)).toBe(false);
  });

  it('sees a group started right after another group was read, and one that died right after', async () => {
    const first = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    started.push(first);
    expect(groupHasLiveMember(first.pid as number)).toBe(true);
    // Within the same few milliseconds: a new group is not missing from the earlier reading.
    const second = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    started.push(second);
    await new Promise((resolve) => second.once('spawn', resolve));
    expect(groupHasLiveMember(second.pid as number)).toBe(true);
    // A dead group is never reported alive for longer than the next reading.
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(groupHasLiveMember(first.pid as number)).toBe(false);
    expect(groupHasLiveMember(second.pid as number)).toBe(true);
  });
});
