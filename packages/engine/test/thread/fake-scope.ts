/**
 * A fake `TurnScope` for unit tests of the turn kinds (compaction, review): an in-memory history,
 * the events it was given, a scripted model client that records its requests, and tools a test
 * answers itself. No thread, no rollout, no server.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApprovalRequest, EngineEventBody, ReviewDecision, ThreadTokenUsage, TokenUsage, UserInput } from '@deputy/protocol';
import type { ModelClient, ModelRequest, ModelStreamEvent, ResponseItem, ToolSpec } from '../../src/model/types.js';
import type { ThreadSettings } from '../../src/thread/settings.js';
import type { ActiveTurn, TurnDeps, TurnScope } from '../../src/thread/turn-scope.js';
import type { ToolContext, ToolOutput } from '../../src/tools/types.js';

/** One scripted response: its stream events in order, or an error the stream throws. */
export type FakeResponse = ModelStreamEvent[] | Error;

/** A model client answering from a queue of scripted responses; records each request. */
export class FakeModel implements ModelClient {
  readonly requests: ModelRequest[] = [];
  readonly #queue: FakeResponse[] = [];

  enqueue(...responses: FakeResponse[]): void {
    this.#queue.push(...responses);
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    this.requests.push(structuredClone(request));
    const response = this.#queue.shift();
    if (!response) throw new Error('no scripted response');
    if (response instanceof Error) throw response;
    for (const event of response) {
      if (signal.aborted) throw signal.reason;
      yield event;
    }
  }
}

/** The stream events of a completed response with these output items (and usage). */
export function completed(items: ResponseItem[], usage: TokenUsage | null = null): ModelStreamEvent[] {
  return [...items.map((item): ModelStreamEvent => ({ type: 'item.done', item })), { type: 'completed', responseId: null, usage }];
}

/** An assistant message. */
export function assistant(text: string, id = 'msg_1'): ResponseItem {
  return { type: 'message', role: 'assistant', id, content: [{ type: 'output_text', text }] };
}

/** Usage with `total` tokens. */
export function usageOf(total: number): TokenUsage {
  return { inputTokens: total, cachedInputTokens: 0, outputTokens: 0, reasoningOutputTokens: 0, totalTokens: total };
}

/** What the fake tools do with a call: a test sets `handle`. */
export interface FakeTools {
  specs(wire: 'responses' | 'chat'): ToolSpec[];
  dispatch(name: string, raw: string, ctx: ToolContext): Promise<ToolOutput>;
  calls: { name: string; raw: string }[];
  handle: (name: string, raw: string, ctx: ToolContext) => Promise<ToolOutput>;
}

function fakeTools(): FakeTools {
  const tools: FakeTools = {
    calls: [],
    handle: async () => ({ output: 'ok', success: true }),
    specs: () => [{ type: 'function', name: 'exec_command', description: 'runs a command', parameters: { type: 'object' }, strict: false }],
    dispatch: (name, raw, ctx) => {
      tools.calls.push({ name, raw });
      return tools.handle(name, raw, ctx);
    },
  };
  return tools;
}

/** Settings for a fake turn in an empty temporary cwd (no AGENTS.md, no repository). */
export function fakeSettings(overrides: Partial<ThreadSettings> = {}): ThreadSettings {
  return {
    cwd: mkdtempSync(join(tmpdir(), 'deputy-fake-scope-')),
    model: 'gpt-fake',
    reasoningEffort: null,
    reasoningSummary: null,
    approvalPolicy: 'never',
    sandboxPolicy: { type: 'read-only', networkAccess: false },
    baseInstructions: null,
    developerInstructions: 'be brief',
    compactPrompt: null,
    ...overrides,
  };
}

/** A TurnScope over plain arrays; `replacements` lists each `replaceHistory` call. */
export class FakeScope implements TurnScope {
  readonly threadId = 'thread-fake';
  readonly turn: ActiveTurn;
  readonly model = new FakeModel();
  readonly tools = fakeTools();
  readonly deps: TurnDeps;
  history: ResponseItem[] = [];
  contextKey: string | null = null;
  usage: ThreadTokenUsage | null = null;
  usageIsStale = false;
  inputs: UserInput[][] = [];
  readonly events: EngineEventBody[] = [];
  readonly replacements: { summary: string; contextKey: string }[] = [];

  constructor(options: { settings?: Partial<ThreadSettings>; contextWindow?: number | null; autoCompactTokenLimit?: number | null } = {}) {
    this.turn = {
      id: 'turn-fake',
      rootTurnId: 'turn-fake',
      clientUserMessageId: null,
      kind: 'regular',
      settings: fakeSettings(options.settings),
      outputSchema: null,
      controller: new AbortController(),
      steerQueue: [],
      startedAtMs: 0,
      toolState: new Map(),
      userShells: new Set(),
      pendingHistory: [],
    };
    const contextWindow = options.contextWindow === undefined ? 10_000 : options.contextWindow;
    this.deps = {
      modelClient: this.model,
      wire: 'responses',
      describeModel: () => ({ contextWindow, supportsReasoning: false, supportsReasoningSummaries: false, known: true }),
      tools: this.tools,
      projectDocMaxBytes: 0,
      autoCompactTokenLimit: options.autoCompactTokenLimit ?? null,
    };
  }

  userInputs(): UserInput[][] {
    return this.inputs;
  }
  emit(body: EngineEventBody): void {
    this.events.push(body);
    if (body.type === 'tokenUsage.updated') {
      this.usage = body.usage;
      this.usageIsStale = false;
    }
  }
  record(item: ResponseItem): void {
    this.history.push(item);
  }
  recordContext(items: readonly ResponseItem[], contextKey: string): void {
    this.contextKey = contextKey;
    this.history.push(...items);
  }
  replaceHistory(summary: string, items: readonly ResponseItem[], contextKey: string): void {
    this.replacements.push({ summary, contextKey });
    this.history = [...items];
    this.contextKey = contextKey;
    this.usageIsStale = true;
  }
  requestApproval(_request: ApprovalRequest): Promise<ReviewDecision> {
    return Promise.resolve('approved');
  }

  /** The event types emitted so far, with the item type for item events. */
  eventTrail(): string[] {
    return this.events.map((e) => ('item' in e && e.type.startsWith('item.') ? `${e.type}:${(e.item as { type: string }).type}` : e.type));
  }
}

/** The text of a message item's parts, joined. */
export function textOf(item: ResponseItem | undefined): string {
  return item?.type === 'message' ? item.content.map((part) => ('text' in part ? part.text : '')).join('') : '';
}
