/**
 * `deputy exec --json` (alias `--experimental-json`): the JSONL event stream `codex exec --json`
 * 0.130 prints, which `@openai/codex-sdk` and other Codex wrappers read. One object per line:
 * `thread.started`, `turn.started`, `item.started` / `item.updated` / `item.completed`,
 * `turn.completed` (thread-total usage), `turn.failed` and `error`. Items get the reference's
 * sequential ids (`item_0`, `item_1`, ...): a tool item keeps the id of its `item.started`,
 * messages and reasoning appear only when completed, the plan is one `todo_list` item started at
 * the first plan, updated at each change and completed when the turn ends. docs/exec.md lists
 * the mapping and the differences. Deputy's own event stream is `--engine-json`.
 */
import type { EngineEvent, FileUpdate, ThreadItem, TokenUsage } from '@deputy/protocol';
import { codexMcpItem } from './render.js';

/** The reference's `usage` of `turn.completed`. */
interface ExecUsage {
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
}

/** One line of the stream. */
export type ExecJsonEvent =
  | { type: 'thread.started'; thread_id: string }
  | { type: 'turn.started' }
  | { type: 'turn.completed'; usage: ExecUsage }
  | { type: 'turn.failed'; error: { message: string } }
  | { type: 'item.started' | 'item.updated' | 'item.completed'; item: ExecItem }
  | { type: 'error'; message: string };

/** An item: `id`, `type` and the type's fields. */
export type ExecItem = { id: string; type: string } & Record<string, unknown>;

interface TodoItem {
  text: string;
  completed: boolean;
}

/** Maps engine events to exec JSONL events for one process (ids count from `item_0`). */
export class ExecJsonlMapper {
  #nextId = 0;
  /** Engine item id → exec id, for items that have started and not yet completed. */
  readonly #started = new Map<string, string>();
  #todo: { id: string; items: TodoItem[] } | null = null;
  #usage: TokenUsage | null = null;
  #lastError: string | null = null;
  /** The last agent message of a completed turn (for `--output-last-message`). */
  finalMessage: string | null = null;

  threadStarted(threadId: string): ExecJsonEvent {
    return { type: 'thread.started', thread_id: threadId };
  }

  /** The lines for one engine event (often none). */
  map(event: EngineEvent): ExecJsonEvent[] {
    switch (event.type) {
      case 'turn.started':
        return [{ type: 'turn.started' }];
      case 'item.started': {
        // Messages and reasoning appear once, when completed.
        if (event.item.type === 'agentMessage' || event.item.type === 'reasoning') return [];
        const item = this.#item(event.item, () => this.#startedId(event.item.id));
        return item ? [{ type: 'item.started', item }] : [];
      }
      case 'item.completed':
        return this.#completed(event.item);
      case 'plan.updated':
        return [this.#plan(event.plan.map((step) => ({ text: step.step, completed: step.status === 'completed' })))];
      case 'tokenUsage.updated':
        this.#usage = event.usage.total;
        return [];
      case 'warning':
        return [{ type: 'item.completed', item: { id: this.#newId(), type: 'error', message: event.message } }];
      case 'error':
        this.#lastError = event.error.message;
        return [{ type: 'error', message: event.error.message }];
      case 'turn.completed':
        return this.#turnEnded(event.turn);
      default:
        return [];
    }
  }

  #newId(): string {
    return `item_${this.#nextId++}`;
  }

  #startedId(engineId: string): string {
    const known = this.#started.get(engineId);
    if (known !== undefined) return known;
    const id = this.#newId();
    this.#started.set(engineId, id);
    return id;
  }

  #completedId(engineId: string): string {
    const known = this.#started.get(engineId);
    this.#started.delete(engineId);
    return known ?? this.#newId();
  }

  #completed(item: ThreadItem): ExecJsonEvent[] {
    if (item.type === 'agentMessage' || item.type === 'reasoning') {
      const mapped = this.#item(item, () => this.#newId());
      if (!mapped) return [];
      if (item.type === 'agentMessage') this.finalMessage = item.text;
      return [{ type: 'item.completed', item: mapped }];
    }
    const mapped = this.#item(item, () => this.#completedId(item.id));
    return mapped ? [{ type: 'item.completed', item: mapped }] : [];
  }

  #plan(items: TodoItem[]): ExecJsonEvent {
    if (this.#todo) {
      this.#todo.items = items;
      return { type: 'item.updated', item: { id: this.#todo.id, type: 'todo_list', items } };
    }
    this.#todo = { id: this.#newId(), items };
    return { type: 'item.started', item: { id: this.#todo.id, type: 'todo_list', items } };
  }

  #turnEnded(turn: Extract<EngineEvent, { type: 'turn.completed' }>['turn']): ExecJsonEvent[] {
    const events: ExecJsonEvent[] = [];
    if (this.#todo) {
      events.push({ type: 'item.completed', item: { id: this.#todo.id, type: 'todo_list', items: this.#todo.items } });
      this.#todo = null;
    }
    if (turn.status === 'completed') {
      if (turn.lastAgentMessage !== null) this.finalMessage = turn.lastAgentMessage;
      const u = this.#usage;
      events.push({
        type: 'turn.completed',
        usage: { input_tokens: u?.inputTokens ?? 0, cached_input_tokens: u?.cachedInputTokens ?? 0, output_tokens: u?.outputTokens ?? 0, reasoning_output_tokens: u?.reasoningOutputTokens ?? 0 },
      });
    } else {
      this.finalMessage = null;
      if (turn.status === 'failed') events.push({ type: 'turn.failed', error: { message: turn.error?.message ?? this.#lastError ?? 'turn failed' } });
    }
    return events;
  }

  /** The exec item for an engine item, or null for items the reference does not show. */
  #item(item: ThreadItem, id: () => string): ExecItem | null {
    switch (item.type) {
      case 'agentMessage':
        return { id: id(), type: 'agent_message', text: item.text };
      case 'reasoning': {
        const text = item.summary.join('\n');
        return text.trim() === '' ? null : { id: id(), type: 'reasoning', text };
      }
      case 'commandExecution':
        return {
          id: id(),
          type: 'command_execution',
          command: item.command,
          aggregated_output: item.aggregatedOutput ?? '',
          exit_code: item.exitCode,
          status: item.status === 'inProgress' ? 'in_progress' : item.status,
        };
      case 'fileChange':
        return {
          id: id(),
          type: 'file_change',
          changes: sortedChanges(item.changes),
          status: item.status === 'inProgress' ? 'in_progress' : item.status === 'completed' ? 'completed' : 'failed',
        };
      case 'mcpToolCall':
        return { ...codexMcpItem(item), id: id() } as ExecItem;
      default:
        return null;
    }
  }
}

/** `{path, kind}` per changed file, sorted by path as the reference lists them. */
function sortedChanges(changes: FileUpdate[]): { path: string; kind: string }[] {
  return changes.map((c) => ({ path: c.path, kind: c.kind.type })).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
