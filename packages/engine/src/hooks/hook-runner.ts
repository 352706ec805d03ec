/**
 * Running the hooks of one event: picks the runnable (enabled and trusted) handlers of the event
 * whose matcher matches, launches them all at once (one hook cannot keep another from starting),
 * reports each run as `hook.started` / `hook.completed` events, and folds their verdicts: the
 * first block (in display order) blocks, every additional context is kept, any `deny` of a
 * permission request wins over an `allow`. Knows no wire; the caller acts on the outcome.
 */
import { v4 as uuidv4 } from 'uuid';
import type { ApprovalPolicy, EngineEventBody, HookRun, SandboxPolicy } from '@deputy/protocol';
import { runHookCommand } from './command.js';
import type { HookEntry, HookEvent } from './discovery.js';
import { interpretHookResult, type HookVerdict } from './output.js';

/** Events whose matcher filters (the tool name, the session source, the compaction trigger). */
const MATCHED_EVENTS: ReadonlySet<HookEvent> = new Set(['PreToolUse', 'PermissionRequest', 'PostToolUse', 'SessionStart', 'PreCompact', 'PostCompact']);

/** What hooks of a thread run with. */
export interface HookContext {
  threadId: string;
  turnId: string;
  cwd: string;
  model: string;
  approvalPolicy: ApprovalPolicy;
  sandbox: SandboxPolicy;
  /** The thread's rollout file, when it has one. */
  transcriptPath: string | null;
  /** The environment hooks get: the shell tools' (`shell_environment_policy`). */
  env: Readonly<Record<string, string>>;
  hiddenPaths: readonly string[];
  signal: AbortSignal;
  emit(body: EngineEventBody): void;
}

/** One event to run hooks for. */
export interface HookRequest {
  event: HookEvent;
  /** What the matcher is tested against (a tool name and its aliases, `startup`, `manual`…). */
  matcherInputs: readonly string[];
  /** The event's own payload fields (`tool_name`, `prompt`, …). */
  fields: Record<string, unknown>;
}

/** What the hooks of one event decided together. */
export interface HookOutcome {
  runs: HookRun[];
  /** The first block, with the run that made it. */
  block: { reason: string; runId: string } | null;
  contexts: string[];
  stop: string | null;
  permission: HookVerdict['permission'];
}

/** `PreToolUse` → `preToolUse`. */
function wireEvent(event: HookEvent): HookRun['eventName'] {
  return (event.charAt(0).toLowerCase() + event.slice(1)) as HookRun['eventName'];
}

/** Whether `matcher` (a regular expression; empty or `*` for all) matches one of `inputs`. */
export function matcherMatches(matcher: string | null, inputs: readonly string[]): boolean {
  if (matcher === null || matcher === '' || matcher === '*') return true;
  try {
    const re = new RegExp(matcher);
    return inputs.some((input) => re.test(input));
  } catch {
    return false;
  }
}

/** The handlers of `request.event` that run: runnable, and matched. */
export function selectHooks(hooks: readonly HookEntry[], request: Pick<HookRequest, 'event' | 'matcherInputs'>): HookEntry[] {
  return hooks.filter((h) => h.isRunnable && h.event === request.event && (!MATCHED_EVENTS.has(h.event) || matcherMatches(h.matcher, request.matcherInputs)));
}

/** The permission mode hooks are told, from the approval policy and sandbox. */
function permissionMode(ctx: HookContext): string {
  return ctx.approvalPolicy === 'never' && ctx.sandbox.type === 'danger-full-access' ? 'bypassPermissions' : 'default';
}

function runOf(hook: HookEntry, id: string, startedAtMs: number): HookRun {
  return {
    id,
    eventName: wireEvent(hook.event),
    handlerType: 'command',
    executionMode: 'sync',
    scope: hook.event === 'SessionStart' ? 'thread' : 'turn',
    source: hook.source,
    sourcePath: hook.sourcePath,
    displayOrder: hook.displayOrder,
    status: 'running',
    statusMessage: hook.statusMessage,
    startedAtMs,
    completedAtMs: null,
    durationMs: null,
    entries: [],
  };
}

/** Runs one hook and reports it; resolves with its final run and verdict. */
async function runOne(hook: HookEntry, run: HookRun, stdin: string, ctx: HookContext): Promise<{ run: HookRun; verdict: HookVerdict }> {
  const result = await runHookCommand({
    command: hook.command ?? '',
    stdin,
    cwd: ctx.cwd,
    env: ctx.env,
    sandbox: ctx.sandbox,
    hiddenPaths: ctx.hiddenPaths,
    timeoutMs: hook.timeoutSec * 1000,
    signal: ctx.signal,
  });
  const verdict = interpretHookResult(hook.event, result);
  const completedAtMs = run.startedAtMs + result.durationMs;
  const done: HookRun = { ...run, status: verdict.status, entries: verdict.entries, completedAtMs, durationMs: result.durationMs };
  ctx.emit({ type: 'hook.completed', run: done });
  return { run: done, verdict };
}

/** Runs the hooks of one event; resolves once all of them ended (each within its timeout). */
export async function runHooks(hooks: readonly HookEntry[], request: HookRequest, ctx: HookContext): Promise<HookOutcome> {
  const selected = selectHooks(hooks, request);
  const outcome: HookOutcome = { runs: [], block: null, contexts: [], stop: null, permission: null };
  if (selected.length === 0) return outcome;
  const stdin = JSON.stringify({
    session_id: ctx.threadId,
    turn_id: ctx.turnId,
    transcript_path: ctx.transcriptPath,
    cwd: ctx.cwd,
    hook_event_name: request.event,
    model: ctx.model,
    permission_mode: permissionMode(ctx),
    ...request.fields,
  });
  const started = selected.map((hook) => {
    const run = runOf(hook, `${hook.key}:${uuidv4()}`, Date.now());
    ctx.emit({ type: 'hook.started', run });
    return { hook, run };
  });
  const results = await Promise.all(started.map(({ hook, run }) => runOne(hook, run, stdin, ctx)));
  for (const { run, verdict } of results) {
    outcome.runs.push(run);
    if (verdict.block !== null && outcome.block === null) outcome.block = { reason: verdict.block, runId: run.id };
    outcome.contexts.push(...verdict.contexts);
    if (verdict.stop !== null && outcome.stop === null) outcome.stop = verdict.stop;
    if (verdict.permission && outcome.permission?.behavior !== 'deny') outcome.permission = verdict.permission;
  }
  return outcome;
}
