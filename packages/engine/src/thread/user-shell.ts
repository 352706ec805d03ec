/**
 * The user's own shell commands (the Codex TUI's `!cmd`, reference: codex-rs/core/src/tasks/
 * user_shell.rs): the command string runs in the user's shell (`$SHELL -lc`, so pipes, redirects
 * and quoting keep their meaning), unsandboxed with full access whatever the thread's sandbox
 * policy, for at most an hour. It is shown as a `commandExecution` item with `source: userShell`
 * whose output streams as deltas, and a `<user_shell_command>` user message with the command, its
 * exit code, duration and output joins the model history, so the next request sees it.
 *
 * With no turn running the command is a turn of its own (the turn runner calls `runUserShell`);
 * with a turn running it joins that turn (`joinUserShell`): it shares the turn's abort signal,
 * its record waits in `pendingHistory` for the turn's next model request (never between a tool
 * call and its output), and the turn completes only after it (`settleUserShells`). Nothing here
 * asks for approval: the user typed the command.
 */
import { v4 as uuidv4 } from 'uuid';
import type { ThreadItem } from '@deputy/protocol';
import { buildChildEnv, withExecEnvDefaults } from '../exec/env.js';
import { ExecProcess } from '../exec/exec-process.js';
import { displayExitCode, truncateForModel } from '../exec/format.js';
import { displayCommand, shellArgv } from '../exec/shell.js';
import type { ResponseItem } from '../model/types.js';
import type { ActiveTurn, TurnScope } from './turn-scope.js';

/** Longest a user shell command may run before its process group is killed (reference: 1 hour). */
export const USER_SHELL_TIMEOUT_MS = 60 * 60 * 1000;

/** The output recorded for a command the user's interrupt cut off (the reference's wording). */
export const USER_SHELL_ABORTED_OUTPUT = 'command aborted by user';

/** What `Thread.runUserShellCommand` started. */
export interface UserShellHandle {
  /** The turn the command runs in: a turn of its own, or the running turn it joined. */
  turnId: string;
  /** True when the command joined a running turn instead of starting one. */
  isJoined: boolean;
  /** Resolves once the command's item has completed (never rejects). */
  done: Promise<void>;
}

/** How a user shell command ended. */
export interface UserShellOutcome {
  /** Exit code as the model reads it: 128 + signal for a killed process, -1 when it never ran or was aborted. */
  exitCode: number;
  durationMs: number;
  /** Combined stdout and stderr (or the failure text), head and tail kept within 1 MiB. */
  output: string;
  timedOut: boolean;
}

type CommandItem = Extract<ThreadItem, { type: 'commandExecution' }>;

/**
 * The model message recording a user shell command, as the reference writes it:
 * `<user_shell_command>\n<command>\n…\n</command>\n<result>\nExit code: N\nDuration: S seconds\nOutput:\n…\n</result>\n</user_shell_command>`.
 * The output is cut in the middle to the model's budget; a timed-out command says so first.
 */
export function userShellRecord(command: string, outcome: UserShellOutcome): ResponseItem {
  const body = outcome.timedOut ? `command timed out after ${outcome.durationMs} milliseconds\n${outcome.output}` : outcome.output;
  const text = [
    '<user_shell_command>',
    '<command>',
    command,
    '</command>',
    '<result>',
    `Exit code: ${outcome.exitCode}`,
    `Duration: ${(outcome.durationMs / 1000).toFixed(4)} seconds`,
    'Output:',
    truncateForModel(body),
    '</result>',
    '</user_shell_command>',
  ].join('\n');
  return { type: 'message', role: 'user', content: [{ type: 'input_text', text }] };
}

/** Runs `command` as part of the running `turn` (a command typed while the turn works). */
export function joinUserShell(scope: TurnScope, command: string): UserShellHandle {
  const turn = scope.turn;
  const done: Promise<void> = runUserShell(scope, command).finally(() => turn.userShells.delete(done));
  turn.userShells.add(done);
  return { turnId: turn.id, isJoined: true, done };
}

/** Waits until no user shell command runs in `turn` (one may join while others finish). */
export async function settleUserShells(turn: ActiveTurn): Promise<void> {
  while (turn.userShells.size > 0) await Promise.all([...turn.userShells]);
}

/** Moves the records waiting in the turn's `pendingHistory` into the model history. */
export function recordPendingHistory(scope: TurnScope): void {
  const pending = scope.turn.pendingHistory;
  for (let item = pending.shift(); item; item = pending.shift()) scope.record(item);
}

/**
 * Runs one user shell command as an item of `turn` and queues its record in
 * `turn.pendingHistory`. Never throws: a command that cannot start, times out or is aborted by
 * the turn's signal still completes its item (status `failed`) and is recorded.
 */
export async function runUserShell(scope: TurnScope, command: string): Promise<void> {
  const turn = scope.turn;
  const signal = turn.controller.signal;
  const argv = shellArgv(command);
  // `source` tells the front doors this is the user's command, not the agent's.
  const started: CommandItem = {
    type: 'commandExecution',
    id: uuidv4(),
    command: displayCommand(argv),
    argv,
    cwd: turn.settings.cwd,
    processId: null,
    status: 'inProgress',
    aggregatedOutput: null,
    exitCode: null,
    durationMs: null,
    source: 'userShell',
  };
  const startedAt = Date.now();
  scope.emit({ type: 'item.started', item: started, atMs: startedAt });
  const outcome = await execute(scope, argv, started.cwd, started.id, signal);
  const completed: CommandItem = {
    ...started,
    status: outcome.exitCode === 0 ? 'completed' : 'failed',
    aggregatedOutput: outcome.output,
    exitCode: outcome.exitCode,
    durationMs: outcome.durationMs,
  };
  scope.emit({ type: 'item.completed', item: completed, atMs: Date.now() });
  turn.pendingHistory.push(userShellRecord(command, outcome));
}

/** Spawns `argv` unsandboxed and waits for its end, its timeout or the turn's abort. */
async function execute(scope: TurnScope, argv: string[], cwd: string, itemId: string, signal: AbortSignal): Promise<UserShellOutcome> {
  const startedAt = Date.now();
  const elapsed = () => Date.now() - startedAt;
  if (signal.aborted) return { exitCode: -1, durationMs: 0, output: USER_SHELL_ABORTED_OUTPUT, timedOut: false };
  let proc: ExecProcess;
  try {
    proc = await ExecProcess.start({
      argv,
      cwd,
      env: scope.deps.childEnv?.() ?? withExecEnvDefaults(buildChildEnv(process.env)),
      tty: false,
      // The user's own command runs unsandboxed, as in the reference.
      sandbox: { type: 'danger-full-access' },
      signal,
      onOutput: (delta, stream) => {
        // Output that arrives after the item completed (an aborted command dying) is not shown.
        if (!signal.aborted) scope.emit({ type: 'item.delta', itemId, kind: 'commandOutput', delta, stream });
      },
    });
  } catch (error) {
    return { exitCode: -1, durationMs: elapsed(), output: `execution error: ${(error as Error).message}`, timedOut: false };
  }
  await proc.waitForExit(startedAt + USER_SHELL_TIMEOUT_MS, signal);
  if (!proc.hasExited && signal.aborted) {
    // The abort already signalled the process group (ExecProcess watches the signal); the item
    // completes now, as the reference's does, and the kill finishes in the background.
    void proc.terminate('aborted').finally(() => proc.dispose());
    return { exitCode: -1, durationMs: elapsed(), output: USER_SHELL_ABORTED_OUTPUT, timedOut: false };
  }
  if (!proc.hasExited) await proc.terminate('timedOut');
  const reading = proc.read();
  proc.dispose();
  if (reading.aborted) return { exitCode: -1, durationMs: elapsed(), output: USER_SHELL_ABORTED_OUTPUT, timedOut: false };
  const exit = reading.exit ?? { exitCode: null, signal: null };
  return { exitCode: displayExitCode(exit), durationMs: elapsed(), output: reading.text, timedOut: reading.timedOut };
}
