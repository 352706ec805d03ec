/**
 * `write_stdin`: writes characters to a running exec session (or polls it with empty `chars`)
 * and returns the output since the last read, in the same layout as exec_command.
 *
 * A running terminal keeps the sandbox it was started under. When the current turn's sandbox
 * does not cover that one (the terminal runs without the sandbox after an approved escalation, or
 * the thread's sandbox was narrowed meanwhile), every input is a new action the current sandbox
 * would not allow: it needs its own approval, and under `never` it is refused, as the reference's
 * `stdin_approval` does (codex-rs/core/src/unified_exec/process_manager, wording of
 * `prompt_is_rejected_by_policy`). Polls, and Ctrl-C on pipes, are never asked about. An approval
 * covers this one input only: it is never remembered for the session.
 */
import { z } from 'zod';
import type { ExecApprovalRequest } from '@deputy/protocol';
import { EndedSessionError, UnknownSessionError } from '../../exec/errors.js';
import type { SessionLaunch } from '../../exec/exec-session.js';
import { formatExecOutput } from '../../exec/format.js';
import { describeSandbox, sandboxCovers } from '../../exec/sandbox-cover.js';
import { defineFunctionTool } from '../define-tool.js';
import { ToolError, type ToolContext } from '../types.js';
import { abortTurn, APPROVAL_TIMED_OUT_TEXT, COMMAND_REJECTED_TEXT } from './approval-flow.js';
import type { ShellServices } from './services.js';

/** write_stdin arguments (names as the reference sends them). */
export const WriteStdinArgsSchema = z
  .object({
    session_id: z.number().describe('Identifier of the running unified exec session.'),
    chars: z.string().optional().describe('Bytes to write to stdin (may be empty to poll).'),
    yield_time_ms: z.number().optional().describe('How long to wait (in milliseconds) for output before yielding.'),
    max_output_tokens: z.number().optional().describe('Maximum number of tokens to return. Excess output will be truncated.'),
  })
  .strict();

/** The prefix of every refusal the model reads (reference: `write_stdin.rs`). */
export const STDIN_REJECTED_PREFIX = 'write_stdin rejected: ';
/** Why input is refused under `never` (the reference's `PROMPT_CONFLICT_REASON`). */
export const STDIN_NEVER_REASON = 'approval required by policy, but AskForApproval is set to Never';

/** Builds the write_stdin tool for a thread. */
export function writeStdinTool(services: ShellServices) {
  return defineFunctionTool({
    name: 'write_stdin',
    description: 'Writes characters to a running exec_command session and returns its recent output. Send empty chars to poll.',
    parameters: WriteStdinArgsSchema,
    async handle(args, ctx) {
      const chars = args.chars ?? '';
      const launch = services.sessions.launchOf(args.session_id);
      if (launch !== undefined && needsApproval(launch, chars, ctx)) {
        const refusal = await approveInput(args.session_id, chars, launch, ctx);
        if (refusal !== null) return { output: STDIN_REJECTED_PREFIX + refusal, success: false };
      }
      try {
        const snapshot = await services.sessions.write(args.session_id, chars, args.yield_time_ms ?? 250, args.max_output_tokens, ctx.signal);
        return { output: formatExecOutput(snapshot), success: snapshot.sessionId !== null || snapshot.exitCode === 0 };
      } catch (error) {
        if (error instanceof EndedSessionError) return { output: STDIN_REJECTED_PREFIX + error.reason, success: false };
        if (error instanceof UnknownSessionError) throw new ToolError(error.message);
        throw error;
      }
    },
  });
}

/** True when `chars` is input the current turn's sandbox would not let the terminal run. */
function needsApproval(launch: SessionLaunch, chars: string, ctx: ToolContext): boolean {
  if (chars === '' || (!launch.tty && chars === '\u0003')) return false;
  return !sandboxCovers({ policy: ctx.sandbox, cwd: ctx.cwd }, launch.sandbox);
}

/**
 * Asks whether this input may go to the terminal: null when approved, else the refusal the model
 * reads (after the prefix). `never` refuses without asking; an abort ends the turn.
 */
async function approveInput(sessionId: number, chars: string, launch: SessionLaunch, ctx: ToolContext): Promise<string | null> {
  if (ctx.approvalPolicy === 'never') return STDIN_NEVER_REASON;
  const request: ExecApprovalRequest = {
    kind: 'exec',
    callId: ctx.callId,
    // The reference shows the input as `write_stdin --session-id ID INPUT`; the front doors render argv.
    command: ['write_stdin', '--session-id', String(sessionId), chars],
    cwd: launch.cwd,
    reason: `Send input to an existing terminal. It runs under ${describeSandbox(launch.sandbox.policy)}, which the current sandbox (${describeSandbox(ctx.sandbox)}) does not cover: the input runs with the terminal's access. The cwd is its launch directory; the terminal's current directory and state may have changed.`,
    proposedPrefixRule: null,
    isSandboxRetry: false,
  };
  const answer = await ctx.requestApproval(request);
  if (typeof answer === 'object') return answer.note;
  switch (answer) {
    case 'approved':
    case 'approved_for_session':
    case 'approved_and_remember':
      return null;
    case 'abort':
      return abortTurn();
    case 'timed_out':
      return APPROVAL_TIMED_OUT_TEXT;
    case 'denied':
      return COMMAND_REJECTED_TEXT;
  }
}
