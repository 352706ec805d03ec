/**
 * Skills and hooks inside a turn: reading them when the turn starts (warnings for a capped skill
 * list), attaching the SKILL.md of each skill the input names, running the hooks of an event
 * with the turn's cwd, model, policies, environment and abort signal, and recording what hooks
 * give the model (additional context as developer messages, a `Stop` hook's continuation as a
 * `hookPrompt` item and a user message). A turn without extensions (tests, reviews) runs no hook.
 */
import type { ApprovalAnswer } from '../approvals/approval-port.js';
import { v4 as uuidv4 } from 'uuid';
import type { ApprovalRequest, ThreadItem, UserInput } from '@deputy/protocol';
import { scriptOf } from '../exec/shell.js';
import { runHooks, type HookOutcome, type HookRequest } from '../hooks/hook-runner.js';
import { mentionedSkills, renderSkillsInstructions, skillInjections } from '../skills/instructions.js';
import type { TurnScope } from './turn-scope.js';

/** Reads the turn's skills and hooks (once per turn); a failure to read leaves the turn without them and warns. */
export async function loadTurnExtensions(scope: TurnScope): Promise<void> {
  const ext = scope.deps.extensions;
  if (!ext || scope.turn.extensions) return;
  const cwd = scope.turn.settings.cwd;
  const [skills, hooks] = await Promise.all([
    ext.skills(cwd).catch((e: unknown) => {
      scope.emit({ type: 'warning', message: `skills could not be read: ${(e as Error).message}` });
      return null;
    }),
    ext.hooks(cwd).catch((e: unknown) => {
      scope.emit({ type: 'warning', message: `hooks could not be read: ${(e as Error).message}` });
      return null;
    }),
  ]);
  const rendered = skills ? renderSkillsInstructions(skills.skills, ext.skillsMaxChars) : null;
  if (rendered?.warning) scope.emit({ type: 'warning', message: rendered.warning });
  scope.turn.extensions = { skills, hooks: hooks?.hooks.filter((h) => h.isRunnable) ?? [], skillsInstructions: rendered?.text ?? null };
}

/** Records the `<skill>` message of each enabled skill `input` names (a `skill` part or `$name`). */
export async function attachMentionedSkills(scope: TurnScope, input: readonly UserInput[]): Promise<void> {
  const skills = scope.turn.extensions?.skills?.skills;
  if (!skills || skills.length === 0) return;
  const named = mentionedSkills(input, skills);
  if (named.length === 0) return;
  const { items, warnings } = await skillInjections(named);
  for (const message of warnings) scope.emit({ type: 'warning', message });
  for (const item of items) scope.record(item);
}

/** Runs the hooks of one event for this turn; null when none is configured for it. */
export async function runTurnHooks(scope: TurnScope, request: HookRequest): Promise<HookOutcome | null> {
  const hooks = scope.turn.extensions?.hooks;
  const ext = scope.deps.extensions;
  if (!ext || !hooks || !hooks.some((h) => h.event === request.event)) return null;
  const s = scope.turn.settings;
  const outcome = await runHooks(hooks, request, {
    threadId: scope.threadId,
    turnId: scope.turn.id,
    cwd: s.cwd,
    model: s.model,
    approvalPolicy: s.approvalPolicy,
    sandbox: s.sandboxPolicy,
    transcriptPath: ext.transcriptPath,
    env: scope.deps.childEnv?.() ?? {},
    hiddenPaths: ext.hiddenPaths,
    signal: scope.turn.controller.signal,
    emit: (body) => scope.emit(body),
  });
  return outcome.runs.length > 0 ? outcome : null;
}

/** Records what hooks added for the model, as developer messages. */
export function recordHookContexts(scope: TurnScope, outcome: HookOutcome | null): void {
  for (const text of outcome?.contexts ?? []) {
    scope.record({ type: 'message', role: 'developer', content: [{ type: 'input_text', text }] });
  }
}

/** Shows a hook's prompt to users (a `hookPrompt` item) and gives it to the model as a user message. */
export function recordHookPrompt(scope: TurnScope, hookRunId: string, text: string): void {
  const item: ThreadItem = { type: 'hookPrompt', id: uuidv4(), fragments: [{ hookRunId, text }] };
  const now = Date.now();
  scope.emit({ type: 'item.started', item, atMs: now });
  scope.record({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
  scope.emit({ type: 'item.completed', item, atMs: now });
}

/** The text of a turn's input as a prompt (text parts joined), for `UserPromptSubmit`. */
export function promptText(input: readonly UserInput[]): string {
  return input.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}

/** How a tool call looks to hooks: its name, the names its matcher may also match, and its input. */
export interface HookTool {
  name: string;
  matcherInputs: string[];
  input: unknown;
}

/** Tools whose calls hooks see as `Bash` with `{ command }`. */
const SHELL_TOOLS = new Set(['exec_command', 'shell', 'shell_command', 'local_shell']);

function parseArguments(raw: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(raw) as unknown;
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The tool a call is, for hooks, or null for tools hooks do not see (the plan, stdin writes,
 * images). Shell calls are `Bash` with `{ command }`; `apply_patch` is matched as `Write` and
 * `Edit` too and carries the patch as `command`; MCP tools keep their `mcp__server__tool` name
 * and arguments, as in the reference.
 */
export function hookToolOf(name: string, rawInput: string): HookTool | null {
  if (SHELL_TOOLS.has(name)) {
    const args = parseArguments(rawInput);
    const command = args.cmd ?? args.command;
    return { name: 'Bash', matcherInputs: ['Bash', name], input: { command: Array.isArray(command) ? command.join(' ') : (command ?? '') } };
  }
  if (name === 'apply_patch') {
    const args = parseArguments(rawInput);
    return { name: 'apply_patch', matcherInputs: ['apply_patch', 'Write', 'Edit'], input: { command: typeof args.input === 'string' ? args.input : rawInput } };
  }
  if (name.startsWith('mcp__')) return { name, matcherInputs: [name], input: parseArguments(rawInput) };
  return null;
}

/**
 * Asks for an approval, letting `PermissionRequest` hooks decide first: a hook's `deny` declines
 * and its `allow` approves without asking anyone; without a decision the user is asked.
 */
export async function requestApprovalWithHooks(scope: TurnScope, request: ApprovalRequest): Promise<ApprovalAnswer> {
  const input = request.kind === 'exec' ? { command: scriptOf(request.command), description: request.reason } : { command: request.changes.map((c) => c.path).join('\n'), description: request.reason };
  const toolName = request.kind === 'exec' ? 'Bash' : 'apply_patch';
  const matcherInputs = request.kind === 'exec' ? ['Bash'] : ['apply_patch', 'Write', 'Edit'];
  const outcome = await runTurnHooks(scope, { event: 'PermissionRequest', matcherInputs, fields: { tool_name: toolName, tool_input: input } });
  if (outcome?.permission?.behavior === 'deny') return 'denied';
  if (outcome?.permission?.behavior === 'allow') return 'approved';
  return scope.requestApproval(request);
}
