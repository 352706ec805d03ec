/**
 * The safety suites' harness: a real engine (temp home, real rollouts, the scripted model server
 * through the openai SDK, real bwrap) where every thread gets its own workspace and its own
 * script of model answers, so one engine serves a whole table of cases. A case runs a real turn
 * and reports what the approval port was asked, the turn's events, and what the model was told
 * (the tool outputs of the follow-up request, or the recorded history when the turn ended first).
 */
import { mkdir, mkdtemp, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApprovalPolicy, EngineEvent, ReviewDecision, SandboxPolicy, ThreadItem, TurnInfo } from '@deputy/protocol';
import { customToolCall, functionCall, functionOutputs, text, type RecordedRequest, type Step } from '@deputy/test-support';
import { checkSandboxAvailable } from '../../src/exec/sandbox-probe.js';
import type { TurnOverrides } from '../../src/thread/settings.js';
import type { Thread } from '../../src/thread/thread.js';
import { collect, startTestEngine, type TestEngine, type TestEngineOptions } from '../helpers/engine.js';

/** Workspace-write confined to the workspace: the suites' temp dirs live under /tmp. */
export const WORKSPACE_WRITE: Extract<SandboxPolicy, { type: 'workspace-write' }> = {
  type: 'workspace-write',
  writableRoots: [],
  networkAccess: false,
  excludeTmpdirEnvVar: true,
  excludeSlashTmp: true,
};
/** The read-only sandbox. */
export const READ_ONLY: SandboxPolicy = { type: 'read-only', networkAccess: false };
/** No sandbox. */
export const FULL_ACCESS: SandboxPolicy = { type: 'danger-full-access' };

/** TOML that keeps `/tmp` and `$TMPDIR` out of the writable roots (the workspaces are temp dirs). */
export const CONFINED_TMP_TOML = ['[sandbox_workspace_write]', 'exclude_slash_tmp = true', 'exclude_tmpdir_env_var = true'].join('\n');

/** Fails loudly (never skips) when bubblewrap cannot run here. */
export async function requireBwrap(): Promise<void> {
  const availability = await checkSandboxAvailable();
  if (!availability.ok) throw new Error(`the safety suites need a working bubblewrap (apt-get install bubblewrap): ${availability.message}`);
}

/** What one turn did. */
export interface CaseResult {
  turn: TurnInfo;
  events: EngineEvent[];
  /** Approval requests the port received during the turn, in order. */
  asked: { kind: string; request: Record<string, unknown> }[];
  /** The text the model read for each tool call of the turn (follow-up request, else history). */
  toldModel: string[];
  /** Model requests this thread made during the turn. */
  requests: RecordedRequest[];
}

/**
 * An exec_command call as the model writes it. Bash is named explicitly (some scripts use
 * `/dev/tcp`), and without `-l` unless `extra` says otherwise, to keep profile noise out.
 */
export function execCall(cmd: string, extra: Record<string, unknown> = {}): Step {
  return { output: [functionCall('exec_command', { cmd, shell: '/bin/bash', login: false, yield_time_ms: 20_000, ...extra })] };
}

/** A freeform apply_patch call as the model writes it. */
export function patchCall(patch: string): Step {
  return { output: [customToolCall('apply_patch', patch)] };
}

/** A patch adding one file with one line. */
export function addFilePatch(path: string, line: string): string {
  return ['*** Begin Patch', `*** Add File: ${path}`, `+${line}`, '*** End Patch'].join('\n');
}

/** A harness over one engine. */
export class SafetyHarness {
  readonly #scripts = new Map<string, Step[]>();
  #counter = 0;

  private constructor(
    readonly engine: TestEngine,
    /** Parent of every workspace and of `outside`. */
    readonly base: string,
    /** A directory outside every workspace (never writable under workspace-write here). */
    readonly outside: string,
  ) {
    engine.server.setHandler((request) => {
      const threadId = String(request.body.prompt_cache_key ?? '');
      return this.#scripts.get(threadId)?.shift() ?? { output: [text('done')] };
    });
  }

  /** Starts an engine whose model answers each thread from that thread's script. */
  static async start(options: TestEngineOptions = {}): Promise<SafetyHarness> {
    const engine = await startTestEngine(options);
    const base = await realpath(await mkdtemp(join(engine.temp.cwd, 'safety-')));
    const outside = join(base, 'outside');
    await mkdir(outside);
    return new SafetyHarness(engine, base, outside);
  }

  /** A unique id for file names of one case. */
  nextId(): string {
    this.#counter += 1;
    return `c${this.#counter}`;
  }

  /** A fresh, empty workspace directory. */
  async newWorkspace(): Promise<string> {
    const dir = join(this.base, `ws-${this.nextId()}`);
    await mkdir(dir);
    return dir;
  }

  /** Starts a thread in `cwd` (a fresh workspace by default); unset policies come from the config. */
  async startThread(options: { approvalPolicy?: ApprovalPolicy; sandbox?: SandboxPolicy; cwd?: string } = {}): Promise<Thread> {
    const cwd = options.cwd ?? (await this.newWorkspace());
    return this.engine.manager.start({
      cwd,
      ...(options.approvalPolicy ? { approvalPolicy: options.approvalPolicy } : {}),
      ...(options.sandbox ? { sandboxPolicy: options.sandbox } : {}),
    });
  }

  /**
   * Runs one turn of `thread`: the model makes `steps` (one per request), then says "done".
   * The approval port answers from `answers` in order, then `fallback`; `overrides` are the turn's.
   */
  async runTurn(
    thread: Thread,
    steps: Step[],
    answers: ReviewDecision[] = [],
    fallback: ReviewDecision = 'denied',
    overrides: TurnOverrides = {},
  ): Promise<CaseResult> {
    const approvals = this.engine.approvals;
    approvals.requests.length = 0;
    approvals.answers.splice(0, approvals.answers.length, ...answers);
    approvals.fallback = fallback;
    this.#scripts.set(thread.id, [...steps]);
    const before = this.threadRequests(thread).length;
    const events = collect(thread);
    const turn = await thread.startTurn([{ type: 'text', text: 'go' }], overrides).done;
    const requests = this.threadRequests(thread).slice(before);
    const callIds = events.flatMap((e) => (e.type === 'model.item' && isToolCall(e.item) ? [String(e.item.call_id)] : []));
    const last = requests.at(-1);
    const fromRequest = last ? functionOutputs(last) : [];
    const toldModel = callIds.map((id) => fromRequest.find((o) => o.call_id === id)?.output ?? historyOutput(thread, id) ?? '');
    return { turn, events, asked: approvals.requests.map((r) => ({ kind: r.kind, request: r.request as Record<string, unknown> })), toldModel, requests };
  }

  /** The model requests made by one thread, in order. */
  threadRequests(thread: Thread): RecordedRequest[] {
    return this.engine.server.requests.filter((r) => r.body.prompt_cache_key === thread.id);
  }

  async close(): Promise<void> {
    await this.engine.close();
  }
}

function isToolCall(item: Record<string, unknown>): boolean {
  return item.type === 'function_call' || item.type === 'custom_tool_call';
}

function historyOutput(thread: Thread, callId: string): string | null {
  const item = thread.history.find((h) => (h.type === 'function_call_output' || h.type === 'custom_tool_call_output') && h.call_id === callId);
  return item && 'output' in item && typeof item.output === 'string' ? item.output : null;
}

/** The completed items of one type, in order. */
export function completedItems<T extends ThreadItem['type']>(events: EngineEvent[], type: T): Extract<ThreadItem, { type: T }>[] {
  return events.flatMap((e) => (e.type === 'item.completed' && e.item.type === type ? [e.item as Extract<ThreadItem, { type: T }>] : []));
}

/** The item ids that were started but never completed (must be empty after every turn). */
export function unfinishedItems(events: EngineEvent[]): string[] {
  const open = new Set<string>();
  for (const e of events) {
    if (e.type === 'item.started') open.add(e.item.id);
    if (e.type === 'item.completed') open.delete(e.item.id);
  }
  return [...open];
}
