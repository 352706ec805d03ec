/**
 * `exec_command`: runs a shell command for the model under the turn's sandbox and approval
 * policy. It asks when the policy says so, offers an unsandboxed retry after a sandbox denial
 * (on-failure), streams output as deltas, and returns the reference's output layout. A command
 * still running after `yield_time_ms` returns a session id that `write_stdin` continues.
 * An `apply_patch <<'EOF'` heredoc is handled as a patch, with the patch rules.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import type { SandboxPolicy, ThreadItem } from '@deputy/protocol';
import { decideAfterSandboxFailure, decideExec, SANDBOX_RETRY_REASON } from '../../approvals/policy.js';
import { proposePrefixRule } from '../../approvals/rules.js';
import type { ExecSnapshot } from '../../exec/exec-session.js';
import { formatExecOutput, truncateForModel } from '../../exec/format.js';
import { looksLikeSandboxDenial } from '../../exec/sandbox.js';
import { displayCommand, shellArgv } from '../../exec/shell.js';
import { extractHeredocPatch } from '../apply-patch/heredoc.js';
import { defineFunctionTool } from '../define-tool.js';
import { runPatch } from '../patch-tool.js';
import { FatalToolError, type ToolContext, type ToolOutput } from '../types.js';
import { abortTurn, askApproval, refusalText, type Refusal } from './approval-flow.js';
import type { ShellServices } from './services.js';

/** Default wait before a running command returns a session id. */
export const DEFAULT_YIELD_TIME_MS = 10_000;
/** Largest aggregated output kept on a command item. */
const MAX_AGGREGATED_CHARS = 256 * 1024;

/** exec_command arguments (names and shapes as the reference sends them). */
export const ExecCommandArgsSchema = z
  .object({
    cmd: z.string().describe('Shell command to execute.'),
    workdir: z.string().optional().describe('Working directory; defaults to the turn cwd.'),
    shell: z.string().optional().describe('Shell binary to launch; defaults to the user default shell.'),
    login: z.boolean().optional().describe('Whether to run the shell with -l/-i semantics. Defaults to true.'),
    tty: z.boolean().optional().describe('Allocate a TTY for the command. Defaults to false (plain pipes).'),
    yield_time_ms: z.number().optional().describe('How long to wait (in milliseconds) for output before yielding.'),
    max_output_tokens: z.number().optional().describe('Maximum number of tokens to return. Excess output will be truncated.'),
    justification: z.string().optional().describe('Only when sandbox_permissions is "require_escalated": a one-sentence reason shown to the user.'),
    sandbox_permissions: z
      .enum(['use_default', 'require_escalated'])
      .optional()
      .describe('"use_default" (the default) runs in the sandbox; "require_escalated" asks the user to run it without the sandbox.'),
    prefix_rule: z
      .array(z.string())
      .optional()
      .describe('Only with "require_escalated": a command prefix (e.g. ["npm", "run"]) the user may approve for future runs.'),
  })
  .strict();
export type ExecCommandArgs = z.infer<typeof ExecCommandArgsSchema>;

const DESCRIPTION = `Runs a command in a shell (by default the user's shell with -lc) and returns its output. Use workdir instead of cd. Commands run in the sandbox described in the permissions message. A command that has not finished after yield_time_ms returns a session ID: call write_stdin with it to send input or poll for more output.`;

/** Builds the exec_command tool for a thread. */
export function execCommandTool(services: ShellServices) {
  return defineFunctionTool({
    name: 'exec_command',
    description: DESCRIPTION,
    parameters: ExecCommandArgsSchema,
    handle: (args, ctx) => execCommand(args, ctx, services),
  });
}

async function execCommand(args: ExecCommandArgs, ctx: ToolContext, services: ShellServices): Promise<ToolOutput> {
  const cwd = resolve(ctx.cwd, args.workdir ?? '.');
  const heredoc = extractHeredocPatch(args.cmd);
  // The patch's paths resolve against the command's directory; its writable roots stay the turn's.
  if (heredoc) return runPatch(heredoc.patch, ctx, services, resolve(cwd, heredoc.workdir ?? '.'));
  const argv = shellArgv(args.cmd, { shell: args.shell, login: args.login });
  const prefixRule = proposePrefixRule(argv, args.prefix_rule && args.prefix_rule.length > 0 ? args.prefix_rule : null);
  const escalated = args.sandbox_permissions === 'require_escalated' && ctx.sandbox.type !== 'danger-full-access';
  // An escalation is covered only by an earlier approval of running this command unsandboxed.
  const isApprovedForSession = services.sessionApprovals.isCommandApproved(argv, { isUnsandboxed: escalated });
  const decision = decideExec({
    argv,
    approvalPolicy: ctx.approvalPolicy,
    sandbox: ctx.sandbox,
    sandboxPermissions: args.sandbox_permissions ?? 'use_default',
    isApprovedForSession,
    matchesAllowRule: services.rules.matches(argv),
    ruleDecision: services.rules.evaluate(argv),
  });
  const base: Extract<ThreadItem, { type: 'commandExecution' }> = {
    type: 'commandExecution',
    id: ctx.callId,
    command: displayCommand(argv),
    argv,
    cwd,
    processId: null,
    status: 'inProgress',
    aggregatedOutput: null,
    exitCode: null,
    durationMs: null,
  };
  if (decision.kind === 'reject') return { output: decision.reason, success: false };
  let sandboxed = decision.kind === 'run' ? decision.sandboxed : decision.sandboxedAfterApproval;
  if (decision.kind === 'ask') {
    const request = { kind: 'exec' as const, callId: ctx.callId, command: argv, cwd, reason: args.justification ?? decision.reason, proposedPrefixRule: prefixRule, isSandboxRetry: false };
    const isUnsandboxed = ctx.sandbox.type !== 'danger-full-access' && !decision.sandboxedAfterApproval;
    const outcome = await askApproval(ctx, services, request, { argv, prefixRule, isUnsandboxed });
    if (outcome !== 'proceed') return declined(ctx, base, outcome, true);
  }
  ctx.emit({ type: 'item.started', item: base, atMs: Date.now() });
  let aggregated = '';
  const started = Date.now();
  const env = services.childEnv();
  const run = async (policy: SandboxPolicy) => {
    // The login shell's state comes from the thread's snapshot (taken in the turn's cwd) when there is one.
    const snapshotted = await services.shellSnapshots?.wrap(argv, { cwd: ctx.cwd, env, sandbox: policy, hiddenPaths: services.sandboxHiddenPaths });
    return services.sessions.start({
      argv: snapshotted?.argv ?? argv,
      readablePaths: snapshotted?.readablePaths,
      cwd,
      // The writable roots come from the turn, never from the command's workdir.
      sandboxCwd: ctx.cwd,
      env,
      tty: args.tty ?? false,
      sandbox: policy,
      // What the thread allowed: a narrowing of the thread's sandbox ends terminals it no longer covers.
      grant: { policy: ctx.sandbox, cwd: ctx.cwd },
      signal: ctx.signal,
      yieldTimeMs: args.yield_time_ms ?? DEFAULT_YIELD_TIME_MS,
      maxOutputTokens: args.max_output_tokens,
      onOutput: (chunk, stream) => {
        if (aggregated.length < MAX_AGGREGATED_CHARS) aggregated += chunk;
        ctx.emit({ type: 'item.delta', itemId: ctx.callId, kind: 'commandOutput', delta: chunk, stream });
      },
    });
  };
  let snapshot: ExecSnapshot;
  try {
    // A safe-list git runs in the read-only sandbox the policy names (approvals/policy.ts, row 5).
    snapshot = await run(sandboxed ? ((decision.kind === 'run' ? decision.sandbox : undefined) ?? ctx.sandbox) : { type: 'danger-full-access' });
    const afterFailure =
      sandboxed && ctx.sandbox.type !== 'danger-full-access' && snapshot.sessionId === null && looksLikeSandboxDenial(snapshot)
        ? // Running without the sandbox is its own question; only an unsandboxed session approval skips it.
          decideAfterSandboxFailure({
            approvalPolicy: ctx.approvalPolicy,
            isUnsandboxedApproved: services.sessionApprovals.isCommandApproved(argv, { isUnsandboxed: true }),
          })
        : 'report';
    if (afterFailure !== 'report') {
      const request = { kind: 'exec' as const, callId: ctx.callId, command: argv, cwd, reason: SANDBOX_RETRY_REASON, proposedPrefixRule: prefixRule, isSandboxRetry: true };
      const outcome =
        afterFailure === 'retry-unsandboxed' ? 'proceed' : await askApproval(ctx, services, request, { argv, prefixRule, isUnsandboxed: true });
      // A refused retry reads as a refusal, as in the reference, not as the sandbox's error.
      if (outcome !== 'proceed') return declined(ctx, { ...base, aggregatedOutput: truncateForModel(aggregated), durationMs: Date.now() - started }, outcome, false);
      sandboxed = false;
      aggregated = '';
      snapshot = await run({ type: 'danger-full-access' });
    }
  } catch (error) {
    // An abort (the turn's signal, or the user answering "abort" to the retry) ends the turn.
    if (ctx.signal.aborted || error instanceof FatalToolError) throw error;
    const message = (error as Error).message;
    ctx.emit({ type: 'item.completed', item: { ...base, status: 'failed', aggregatedOutput: message, exitCode: -1, durationMs: Date.now() - started }, atMs: Date.now() });
    return { output: `failed to run command: ${message}`, success: false };
  }
  const running = snapshot.sessionId !== null;
  const exitCode = running ? null : (snapshot.exitCode ?? -1);
  ctx.emit({
    type: 'item.completed',
    item: {
      ...base,
      processId: running ? String(snapshot.sessionId) : null,
      status: running || exitCode === 0 ? 'completed' : 'failed',
      aggregatedOutput: truncateForModel(aggregated),
      exitCode,
      durationMs: Date.now() - started,
    },
    atMs: Date.now(),
  });
  if (snapshot.aborted && ctx.signal.aborted) throw ctx.signal.reason;
  return { output: formatExecOutput(snapshot), success: running || exitCode === 0 };
}

/**
 * Ends a command the user did not let run (again): the item completes as declined, then the
 * model reads the refusal, or the turn ends when the answer was abort.
 */
function declined(
  ctx: ToolContext,
  item: Extract<ThreadItem, { type: 'commandExecution' }>,
  outcome: Refusal,
  isNewItem: boolean,
): ToolOutput {
  const now = Date.now();
  if (isNewItem) ctx.emit({ type: 'item.started', item, atMs: now });
  ctx.emit({ type: 'item.completed', item: { ...item, status: 'declined' }, atMs: now });
  if (outcome === 'aborted') abortTurn();
  return { output: refusalText(outcome, 'exec'), success: false };
}
