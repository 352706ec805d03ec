/**
 * `Thread.runUserShellCommand` (the TUI's `!cmd`) against a real engine and the scripted model:
 * the command runs in the user's shell with its syntax intact, unsandboxed even on a read-only
 * thread, as a `userShell` command item of a turn of its own (no model request) or of the turn
 * that is running; its `<user_shell_command>` record reaches the next model request; an
 * interrupt kills it and records that it was aborted.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineEvent } from '@deputy/protocol';
import { functionCall, functionOutputs, inputItems, lastUserText, text } from '@deputy/test-support';
import { InvalidInputError } from '../../src/errors.js';
import { checkSandboxAvailable } from '../../src/exec/sandbox-probe.js';
import { userShellRecord } from '../../src/thread/user-shell.js';
import { collect, startTestEngine, waitFor, type TestEngine } from '../helpers/engine.js';
import { groupExists, killGroupQuietly, ofType, readRolloutLines, requestText } from './support.js';

let engine: TestEngine | null = null;
const groups: number[] = [];
afterEach(async () => {
  try {
    await engine?.close();
  } finally {
    for (const pgid of groups.splice(0)) killGroupQuietly(pgid);
    engine = null;
  }
});

type CommandItem = Extract<EngineEvent, { type: 'item.completed' }>['item'] & { type: 'commandExecution' };

/** The completed command items of `events`, with their (engine-side) `source`. */
function commandItems(events: EngineEvent[]): (CommandItem & { source?: string })[] {
  return ofType(events, 'item.completed')
    .map((e) => e.item)
    .filter((item): item is CommandItem => item.type === 'commandExecution');
}

describe('a user shell command with no turn running', () => {
  it('runs the line in the user shell as a turn of its own, with output, exit code and no model request', async () => {
    engine = await startTestEngine();
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    const handle = thread.runUserShellCommand("  printf 'alpha\\nbeta\\n' | tr a-z A-Z | sort -r  ");
    expect(handle.isJoined).toBe(false);
    await handle.done;

    expect(events.map((e) => e.type).filter((t) => t !== 'model.item' && t !== 'item.delta')).toEqual(['turn.started', 'item.started', 'item.completed', 'turn.completed']);
    expect(events.every((e) => e.turnId === handle.turnId)).toBe(true);
    const started = ofType(events, 'item.started')[0]!.item as CommandItem & { source?: string };
    expect(started).toMatchObject({ type: 'commandExecution', status: 'inProgress', source: 'userShell', cwd: engine.temp.cwd, aggregatedOutput: null, exitCode: null });
    // The line is passed to the shell as one script: the pipe is the shell's, not an argument.
    expect(started.argv.slice(1)).toEqual(['-lc', "printf 'alpha\\nbeta\\n' | tr a-z A-Z | sort -r"]);
    expect(started.command).toMatch(/ -lc 'printf '\\''alpha\\nbeta\\n'\\'' \| tr a-z A-Z \| sort -r'$/);
    const [item] = commandItems(events);
    expect(item).toMatchObject({ id: started.id, status: 'completed', exitCode: 0, aggregatedOutput: 'BETA\nALPHA\n', source: 'userShell' });
    expect(item!.durationMs).toBeGreaterThanOrEqual(0);
    const deltas = ofType(events, 'item.delta').filter((d) => d.itemId === started.id).map((d) => d.delta).join('');
    expect(deltas).toBe('BETA\nALPHA\n');
    expect(ofType(events, 'turn.completed')[0]!.turn).toMatchObject({ id: handle.turnId, status: 'completed', error: null, lastAgentMessage: null });
    expect(engine.server.requests).toHaveLength(0);
  });

  it('records the command and its output for the model, so the next turn sees them', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ output: [text('seen')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await thread.runUserShellCommand('echo out; echo err >&2; exit 3').done;
    await thread.startTurn([{ type: 'text', text: 'why did it fail?' }]).done;

    const request = engine.server.requests[0]!;
    const record = inputItems(request).find((i) => JSON.stringify(i).includes('<user_shell_command>'));
    expect(record).toMatchObject({ type: 'message', role: 'user' });
    const recordText = (record!.content as { text: string }[])[0]!.text;
    expect(recordText).toMatch(/^<user_shell_command>\n<command>\necho out; echo err >&2; exit 3\n<\/command>\n<result>\nExit code: 3\nDuration: \d+\.\d{4} seconds\nOutput:\n/);
    expect(recordText).toContain('out\n');
    expect(recordText).toContain('err\n');
    expect(recordText.endsWith('\n</result>\n</user_shell_command>')).toBe(true);
    expect(lastUserText(request)).toBe('why did it fail?');
    // The record precedes the new input.
    expect(requestText(request).indexOf('<user_shell_command>')).toBeLessThan(requestText(request).indexOf('why did it fail?'));
    // It is persisted, like every model item.
    const lines = await readRolloutLines(thread.path!);
    expect(lines.some((l) => l.type === 'response_item' && JSON.stringify(l.payload).includes('<user_shell_command>'))).toBe(true);
  });

  it('marks a failing command failed with its exit code and a command that cannot start with -1', async () => {
    engine = await startTestEngine();
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    await thread.runUserShellCommand('exit 7').done;
    expect(commandItems(events)[0]).toMatchObject({ status: 'failed', exitCode: 7, aggregatedOutput: '' });

    const gone = await engine.manager.start({ cwd: join(engine.temp.cwd, 'missing-dir') });
    const goneEvents = collect(gone);
    await gone.runUserShellCommand('true').done;
    const failed = commandItems(goneEvents)[0]!;
    expect(failed).toMatchObject({ status: 'failed', exitCode: -1 });
    expect(failed.aggregatedOutput).toMatch(/^execution error: Working directory does not exist/);
  });

  it('runs unsandboxed with full access on a read-only thread', async () => {
    const availability = await checkSandboxAvailable();
    if (!availability.ok) throw new Error(`this test needs a working bwrap: ${availability.message}`);
    engine = await startTestEngine({ sandbox: 'read-only' });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    expect(thread.settings.sandboxPolicy.type).toBe('read-only');
    const events = collect(thread);
    await thread.runUserShellCommand('echo written > from-user-shell.txt && cat from-user-shell.txt').done;
    expect(commandItems(events)[0]).toMatchObject({ status: 'completed', exitCode: 0, aggregatedOutput: 'written\n' });
    expect(readFileSync(join(engine.temp.cwd, 'from-user-shell.txt'), 'utf8')).toBe('written\n');
  });

  it('refuses an empty command and a closed thread', async () => {
    engine = await startTestEngine();
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    expect(() => thread.runUserShellCommand('  \n ')).toThrow(new InvalidInputError('command must not be empty'));
    expect(thread.activeTurnId).toBeNull();
    await engine.manager.unload(thread.id);
    expect(() => thread.runUserShellCommand('true')).toThrow(/is closed/);
  });

  it('is killed by an interrupt, completing as aborted, and the abort is recorded', async () => {
    engine = await startTestEngine();
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    const handle = thread.runUserShellCommand('echo $$ > shell.pid; echo started; sleep 30');
    const pidFile = join(engine.temp.cwd, 'shell.pid');
    await waitFor(() => ofType(events, 'item.delta').length > 0 && existsSync(pidFile), 5000, 'the command to start');
    const pgid = Number((await readFile(pidFile, 'utf8')).trim());
    groups.push(pgid);
    const interrupted = await thread.interrupt(handle.turnId);
    expect(interrupted).toMatchObject({ id: handle.turnId, status: 'interrupted' });
    await handle.done;
    expect(commandItems(events)[0]).toMatchObject({ status: 'failed', exitCode: -1, aggregatedOutput: 'command aborted by user', source: 'userShell' });
    await waitFor(() => !groupExists(pgid), 5000, 'the process group to die');
    const record = thread.history.at(-1);
    expect(JSON.stringify(record)).toContain('Exit code: -1');
    expect(JSON.stringify(record)).toContain('command aborted by user');
  });

  it('takes steer input while it runs and records it as the user message it is', async () => {
    engine = await startTestEngine();
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    const gate = join(engine.temp.cwd, 'gate');
    const handle = thread.runUserShellCommand(`while [ ! -f ${gate} ]; do sleep 0.02; done`);
    await waitFor(() => ofType(events, 'item.started').length > 0, 5000, 'the command item');
    expect(thread.steer([{ type: 'text', text: 'note for later' }], handle.turnId)).toBe(handle.turnId);
    await writeFile(gate, '');
    await handle.done;
    expect(ofType(events, 'item.completed').map((e) => e.item.type)).toEqual(['commandExecution', 'userMessage']);
    expect(lastUserText({ body: { input: thread.history } } as never)).toBe('note for later');
    expect(engine.server.requests).toHaveLength(0);
  });
});

describe('a user shell command while a turn runs', () => {
  it('joins the running turn, and its record reaches the model after the tool output', async () => {
    engine = await startTestEngine();
    const gate = join(engine.temp.cwd, 'gate');
    const waitForGate = `while [ ! -f ${gate} ]; do sleep 0.02; done; echo gated`;
    engine.server.enqueue({ output: [functionCall('exec_command', { cmd: waitForGate, yield_time_ms: 20_000 }, 'call-gate')] }, { output: [text('saw both')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    const turn = thread.startTurn([{ type: 'text', text: 'wait for the gate' }]);
    await waitFor(() => ofType(events, 'item.started').some((e) => e.item.id === 'call-gate'), 10_000, 'the agent command');

    const shell = thread.runUserShellCommand('echo from the user');
    expect(shell).toMatchObject({ turnId: turn.turnId, isJoined: true });
    await shell.done;
    const userItem = commandItems(events).find((i) => i.source === 'userShell');
    expect(userItem).toMatchObject({ status: 'completed', exitCode: 0, aggregatedOutput: 'from the user\n' });
    await writeFile(gate, '');
    const info = await turn.done;

    expect(info.status).toBe('completed');
    expect(ofType(events, 'turn.started')).toHaveLength(1);
    expect(ofType(events, 'turn.completed')).toHaveLength(1);
    expect(events.filter((e) => e.type !== 'model.item').every((e) => e.turnId === turn.turnId)).toBe(true);
    expect(engine.server.requests).toHaveLength(2);
    const second = inputItems(engine.server.requests[1]!);
    const output = second.findIndex((i) => i.type === 'function_call_output');
    const record = second.findIndex((i) => JSON.stringify(i).includes('<user_shell_command>'));
    expect(functionOutputs(engine.server.requests[1]!)[0]!.output).toContain('gated');
    // The call and its output stay adjacent; the record joins after them.
    expect(second[output - 1]).toMatchObject({ type: 'function_call', call_id: 'call-gate' });
    expect(record).toBe(output + 1);
    expect(JSON.stringify(second[record])).toContain('echo from the user');
  });

  it('holds the end of the turn until the joined command ends, and the next turn sees its record', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ output: [text('quick answer')], delayMs: 5 }, { output: [text('next')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const events = collect(thread);
    const gate = join(engine.temp.cwd, 'gate');
    const turn = thread.startTurn([{ type: 'text', text: 'answer quickly' }]);
    const shell = thread.runUserShellCommand(`while [ ! -f ${gate} ]; do sleep 0.02; done; echo late`);
    expect(shell.isJoined).toBe(true);
    await waitFor(() => ofType(events, 'item.completed').some((e) => e.item.type === 'agentMessage'), 5000, 'the answer');
    await new Promise((r) => setTimeout(r, 100));
    expect(thread.activeTurnId).toBe(turn.turnId);
    expect(ofType(events, 'turn.completed')).toHaveLength(0);
    await writeFile(gate, '');
    await turn.done;
    const types = events.filter((e) => e.type === 'item.completed' || e.type === 'turn.completed').map((e) => (e.type === 'item.completed' ? e.item.type : e.type));
    expect(types.slice(-2)).toEqual(['commandExecution', 'turn.completed']);
    expect(engine.server.requests).toHaveLength(1);

    await thread.startTurn([{ type: 'text', text: 'and now?' }]).done;
    expect(requestText(engine.server.requests[1]!)).toContain('late\\n');
  });
});

describe('userShellRecord', () => {
  it('writes the reference layout, saying first when the command timed out', () => {
    const record = userShellRecord('sleep 9', { exitCode: 143, durationMs: 1500, output: 'partial\n', timedOut: true });
    expect(record).toEqual({
      type: 'message',
      role: 'user',
      content: [
        {
          type: 'input_text',
          text: '<user_shell_command>\n<command>\nsleep 9\n</command>\n<result>\nExit code: 143\nDuration: 1.5000 seconds\nOutput:\ncommand timed out after 1500 milliseconds\npartial\n\n</result>\n</user_shell_command>',
        },
      ],
    });
  });
});
