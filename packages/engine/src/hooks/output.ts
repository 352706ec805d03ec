/**
 * The decision protocol of command hooks, per event, as the reference reads a hook's end:
 * exit 0 with JSON on stdout (validated with zod: `continue`, `stopReason`, `systemMessage`,
 * `decision`/`reason`, `hookSpecificOutput` with `additionalContext`, `permissionDecision`,
 * `permissionDecisionReason`, `decision.behavior`), exit 0 with plain text (context for
 * `SessionStart` and `UserPromptSubmit`, ignored elsewhere), exit 2 with the reason on stderr
 * (block), any other exit a failure that changes nothing. Pure: text in, verdict out.
 */
import { z } from 'zod';
import type { HookEvent } from './discovery.js';
import type { HookCommandResult } from './command.js';

/** One line of a hook run's report. */
export interface HookOutputEntry {
  kind: 'warning' | 'stop' | 'feedback' | 'context' | 'error';
  text: string;
}

/** What one hook run decided. */
export interface HookVerdict {
  status: 'completed' | 'failed' | 'blocked' | 'stopped';
  entries: HookOutputEntry[];
  /** Block the action (the tool call, the prompt) or, for `Stop`, continue the turn with this text. */
  block: string | null;
  /** Text for the model. */
  contexts: string[];
  /** `continue: false`: end the turn, with this reason. */
  stop: string | null;
  /** For `PermissionRequest`: the decision, if the hook made one. */
  permission: { behavior: 'allow' } | { behavior: 'deny'; message: string } | null;
}

const UniversalSchema = z.looseObject({
  continue: z.boolean().default(true),
  stopReason: z.string().nullish(),
  suppressOutput: z.boolean().default(false),
  systemMessage: z.string().nullish(),
  decision: z.enum(['block', 'approve']).nullish(),
  reason: z.string().nullish(),
  hookSpecificOutput: z
    .looseObject({
      additionalContext: z.string().nullish(),
      permissionDecision: z.enum(['allow', 'deny', 'ask']).nullish(),
      permissionDecisionReason: z.string().nullish(),
      updatedInput: z.unknown().optional(),
      decision: z.looseObject({ behavior: z.enum(['allow', 'deny']), message: z.string().nullish() }).nullish(),
    })
    .nullish(),
});
type Universal = z.infer<typeof UniversalSchema>;

/** Events whose plain-text stdout is context for the model. */
const PLAIN_TEXT_CONTEXT: ReadonlySet<HookEvent> = new Set(['SessionStart', 'UserPromptSubmit']);
/** Events that can block with `decision: "block"` / exit 2. */
const CAN_BLOCK: ReadonlySet<HookEvent> = new Set(['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop']);

function nonEmpty(text: string | null | undefined): string | null {
  const t = text?.trim();
  return t ? t : null;
}

function verdict(): HookVerdict {
  return { status: 'completed', entries: [], block: null, contexts: [], stop: null, permission: null };
}

function fail(v: HookVerdict, text: string): HookVerdict {
  v.status = 'failed';
  v.entries.push({ kind: 'error', text });
  return v;
}

/** The reason a PreToolUse output blocks for, or an error message when the output is unsupported. */
function preToolUseBlock(out: Universal): { block: string | null } | { error: string } {
  const specific = out.hookSpecificOutput;
  if (specific && (specific.permissionDecision || specific.permissionDecisionReason)) {
    if (specific.permissionDecision === 'deny') {
      const reason = nonEmpty(specific.permissionDecisionReason);
      return reason ? { block: reason } : { error: 'PreToolUse hook returned permissionDecision:deny without a non-empty permissionDecisionReason' };
    }
    if (specific.permissionDecision === 'ask') return { error: 'PreToolUse hook returned unsupported permissionDecision:ask' };
    if (specific.permissionDecision === 'allow') return { block: null };
    return { error: 'PreToolUse hook returned permissionDecisionReason without permissionDecision' };
  }
  if (out.decision === 'approve') return { error: 'PreToolUse hook returned unsupported decision:approve' };
  if (out.decision === 'block') {
    const reason = nonEmpty(out.reason);
    return reason ? { block: reason } : { error: 'PreToolUse hook returned decision:block without a non-empty reason' };
  }
  return { block: null };
}

/** Applies a parsed JSON output to the verdict. */
function applyJson(event: HookEvent, out: Universal, v: HookVerdict): HookVerdict {
  if (out.systemMessage) v.entries.push({ kind: 'warning', text: out.systemMessage });
  if ((event === 'PreToolUse' || event === 'PermissionRequest') && (!out.continue || out.stopReason || out.suppressOutput)) {
    return fail(v, `${event} hook returned unsupported ${!out.continue ? 'continue:false' : out.stopReason ? 'stopReason' : 'suppressOutput'}`);
  }
  const context = nonEmpty(out.hookSpecificOutput?.additionalContext);
  if (context) {
    v.contexts.push(context);
    v.entries.push({ kind: 'context', text: context });
  }
  if (!out.continue) {
    v.status = 'stopped';
    v.stop = nonEmpty(out.stopReason) ?? `${event} hook stopped the turn`;
    v.entries.push({ kind: 'stop', text: v.stop });
    return v;
  }
  if (event === 'PreToolUse') {
    const decided = preToolUseBlock(out);
    if ('error' in decided) return fail(v, decided.error);
    if (decided.block) return block(v, decided.block);
    return v;
  }
  if (event === 'PermissionRequest') {
    const d = out.hookSpecificOutput?.decision;
    if (d) v.permission = d.behavior === 'allow' ? { behavior: 'allow' } : { behavior: 'deny', message: nonEmpty(d.message) ?? 'PermissionRequest hook denied approval' };
    return v;
  }
  if (CAN_BLOCK.has(event) && out.decision === 'block') {
    const reason = nonEmpty(out.reason);
    return reason ? block(v, reason) : fail(v, `${event} hook returned decision:block without a non-empty reason`);
  }
  return v;
}

function block(v: HookVerdict, reason: string): HookVerdict {
  v.status = 'blocked';
  v.block = reason;
  v.entries.push({ kind: 'feedback', text: reason });
  return v;
}

/** Reads how one hook run ended into its verdict. */
export function interpretHookResult(event: HookEvent, result: HookCommandResult): HookVerdict {
  const v = verdict();
  if (result.error !== null) return fail(v, result.error);
  if (result.exitCode === 2) {
    const reason = nonEmpty(result.stderr);
    if (!CAN_BLOCK.has(event)) return fail(v, reason ?? `${event} hook exited with code 2`);
    return reason ? block(v, reason) : fail(v, `${event} hook exited with code 2 but did not write a blocking reason to stderr`);
  }
  if (result.exitCode !== 0) return fail(v, `hook exited with code ${result.exitCode}`);
  const stdout = result.stdout.trim();
  if (stdout === '') return v;
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  const parsed = json !== null && typeof json === 'object' && !Array.isArray(json) ? UniversalSchema.safeParse(json) : null;
  if (parsed?.success) return applyJson(event, parsed.data, v);
  if (stdout.startsWith('{') || stdout.startsWith('[')) return fail(v, `hook returned invalid ${event} JSON output`);
  if (PLAIN_TEXT_CONTEXT.has(event)) {
    v.contexts.push(stdout);
    v.entries.push({ kind: 'context', text: stdout });
  }
  return v;
}
