/**
 * The projection from Deputy's engine to ACP `session/update` payloads (docs/acp.md, "What the
 * editor sees"). Pure functions: one mapping of thread items is used for live turns and for the
 * replay of `session/load`, so a reloaded session shows what the live one showed. Live turns add
 * streamed chunks; the completed item fills in whatever was not streamed.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { displayText, type EngineEvent, type ThreadItem, type ToolItemStatus, type UserInput } from '@deputy/protocol';

/** What the client takes (from its capabilities). */
export interface ClientView {
  /** `session.compaction`: compactions are `compaction_update`s, else a thought chunk. */
  compaction: boolean;
}

/** The client's view, and what the live turn already sent. */
export interface LiveState extends ClientView {
  /** Item ids whose text already went out as chunks. */
  streamed: Set<string>;
  /** Compactions announced `in_progress` and not yet ended. */
  compactions: Set<string>;
}

/** A tool item's status in ACP terms. */
export function toolStatus(status: ToolItemStatus): acp.ToolCallStatus {
  switch (status) {
    case 'inProgress':
      return 'in_progress';
    case 'completed':
      return 'completed';
    case 'failed':
    case 'declined':
      return 'failed';
  }
}

const text = (t: string): acp.ContentBlock => ({ type: 'text', text: t });

/** The program of a command line (`/bin/bash -lc 'rg x'` → `rg`), for its tool kind. */
function commandKind(argv: string[]): acp.ToolKind {
  const script = argv.length >= 3 && /(^|\/)(ba|z|)sh$/.test(argv[0] ?? '') && argv[1]?.startsWith('-') ? (argv[2] ?? '') : argv.join(' ');
  const program = script.trim().split(/\s+/)[0] ?? '';
  if (/[|;&<>]/.test(script)) return 'execute';
  if (['cat', 'head', 'tail', 'less', 'sed'].includes(program) && !/\s-i\b/.test(script)) return 'read';
  if (['rg', 'grep', 'find', 'ls', 'fd'].includes(program)) return 'search';
  return 'execute';
}

/**
 * The full `tool_call` of a tool item (title, kind, locations, content, raw input/output). The
 * title is text the editor shows, so it is neutralised (displayText); locations and raw input
 * stay exact data.
 */
export function toolCallOf(item: ThreadItem): Omit<acp.ToolCall, 'status'> & { status: acp.ToolCallStatus } | null {
  switch (item.type) {
    case 'commandExecution': {
      const content: acp.ToolCallContent[] = item.aggregatedOutput ? outputContent(item.aggregatedOutput) : [];
      return {
        toolCallId: item.id,
        title: displayText(item.command),
        kind: commandKind(item.argv),
        status: toolStatus(item.status),
        locations: [{ path: item.cwd }],
        content,
        rawInput: { command: item.command, argv: item.argv, cwd: item.cwd },
        ...(item.status === 'inProgress' ? {} : { rawOutput: { exitCode: item.exitCode, durationMs: item.durationMs } }),
      };
    }
    case 'fileChange': {
      const kinds = new Set(item.changes.map((c) => (c.kind.type === 'delete' ? 'delete' : c.kind.type === 'update' && c.kind.move_path ? 'move' : 'edit')));
      const kind: acp.ToolKind = kinds.size === 1 ? ([...kinds][0] as acp.ToolKind) : 'edit';
      return {
        toolCallId: item.id,
        title: `Edit ${item.changes.map((c) => displayText(c.path)).join(', ')}`,
        kind,
        status: toolStatus(item.status),
        locations: item.changes.map((c) => ({ path: c.path })),
        content: item.changes.map((c) => diffContent(c)),
        rawInput: { changes: item.changes },
      };
    }
    case 'mcpToolCall':
      return {
        toolCallId: item.id,
        title: `${displayText(item.server)}.${displayText(item.tool)}`,
        kind: 'other',
        status: toolStatus(item.status),
        rawInput: item.arguments ?? null,
        content: mcpResultContent(item.result, item.error ?? null),
        ...(item.result === undefined ? {} : { rawOutput: item.result }),
      };
    case 'imageView':
      return { toolCallId: item.id, title: `View ${displayText(item.path)}`, kind: 'read', status: 'completed', locations: [{ path: item.path }] };
    default:
      return null;
  }
}

const MAX_OUTPUT = 64 * 1024;

/** Command output as the content of its tool call: the last 64 KiB in a `sh` fence. */
export function outputContent(output: string): acp.ToolCallContent[] {
  return [{ type: 'content', content: text(`\`\`\`sh\n${tailOf(output)}\n\`\`\``) }];
}

function tailOf(output: string): string {
  return output.length <= MAX_OUTPUT ? output.replace(/\n$/, '') : `…${output.slice(-MAX_OUTPUT)}`;
}

/**
 * A file change as an ACP diff. The engine keeps a unified diff per file: for an added file the
 * added lines are the new text; for an update the diff's sides are given (a hunk's old and new
 * lines), which is what the item records.
 */
function diffContent(change: { path: string; kind: { type: string }; diff: string }): acp.ToolCallContent {
  if (change.kind.type === 'add') return { type: 'diff', path: change.path, oldText: null, newText: change.diff };
  if (change.kind.type === 'delete') return { type: 'diff', path: change.path, oldText: change.diff, newText: '' };
  const oldLines: string[] = [];
  const newLines: string[] = [];
  for (const line of change.diff.split('\n')) {
    if (line.startsWith('---') || line.startsWith('+++') || line.startsWith('@@')) continue;
    if (line.startsWith('-')) oldLines.push(line.slice(1));
    else if (line.startsWith('+')) newLines.push(line.slice(1));
    else if (line.startsWith(' ')) {
      oldLines.push(line.slice(1));
      newLines.push(line.slice(1));
    }
  }
  return { type: 'diff', path: change.path, oldText: oldLines.join('\n'), newText: newLines.join('\n') };
}

function mcpResultContent(result: unknown, error: string | null): acp.ToolCallContent[] {
  if (error) return [{ type: 'content', content: text(error) }];
  const blocks = (result as { content?: unknown[] } | undefined)?.content;
  if (!Array.isArray(blocks)) return [];
  return blocks.filter((b): b is acp.ContentBlock => typeof b === 'object' && b !== null && ['text', 'image', 'resource_link', 'resource'].includes((b as { type?: string }).type ?? '')).map((content) => ({ type: 'content', content }));
}

/** The user's input as content blocks (replay only: live prompts are not echoed). */
export function userBlocks(content: UserInput[]): acp.ContentBlock[] {
  return content.flatMap((input): acp.ContentBlock[] => {
    if (input.type === 'text') return [text(input.text)];
    if (input.type === 'image') {
      const match = /^data:([^;,]+);base64,(.*)$/s.exec(input.url);
      return match ? [{ type: 'image', mimeType: match[1] ?? 'image/png', data: match[2] ?? '' }] : [{ type: 'resource_link', uri: input.url, name: input.url }];
    }
    if (input.type === 'localImage') return [{ type: 'resource_link', uri: `file://${input.path}`, name: input.path }];
    return [];
  });
}

/**
 * A completed item's updates. `live` says which texts were already streamed (nothing more to
 * send for them) and that tool calls were announced at start (so only the final state is sent,
 * as a `tool_call_update`). Without `live` (replay) every tool item is one complete `tool_call`.
 */
export function completedItemUpdates(item: ThreadItem, live: LiveState | null, view: ClientView = live ?? { compaction: false }): acp.SessionUpdate[] {
  switch (item.type) {
    case 'userMessage':
      return live ? [] : userBlocks(item.content).map((content) => ({ sessionUpdate: 'user_message_chunk', content, messageId: item.id }));
    case 'agentMessage':
      if (live?.streamed.has(item.id) || item.text === '') return [];
      return [{ sessionUpdate: 'agent_message_chunk', content: text(item.text), messageId: item.id }];
    case 'reasoning': {
      if (live?.streamed.has(item.id)) return [];
      const thought = [...item.summary, ...(item.summary.length === 0 ? item.content : [])].join('\n\n');
      return thought === '' ? [] : [{ sessionUpdate: 'agent_thought_chunk', content: text(thought), messageId: item.id }];
    }
    case 'contextCompaction':
      live?.compactions.delete(item.id);
      if (view.compaction) return [{ sessionUpdate: 'compaction_update', compactionId: item.id, status: 'completed' }];
      return [{ sessionUpdate: 'agent_thought_chunk', content: text('Context compacted'), messageId: item.id }];
    case 'enteredReviewMode':
      return [];
    case 'exitedReviewMode':
      return [{ sessionUpdate: 'agent_message_chunk', content: text(item.review), messageId: item.id }];
    default: {
      const call = toolCallOf(item);
      if (!call) return [];
      if (!live) return [{ sessionUpdate: 'tool_call', ...call }];
      const { title: _title, kind: _kind, locations: _locations, rawInput: _rawInput, ...final } = call;
      return [{ sessionUpdate: 'tool_call_update', ...final }];
    }
  }
}

/** The plan as ACP entries (a full replacement). */
export function planUpdate(plan: { step: string; status: 'pending' | 'in_progress' | 'completed' }[]): acp.SessionUpdate {
  return { sessionUpdate: 'plan', entries: plan.map((s) => ({ content: s.step, status: s.status, priority: 'medium' })) };
}

/** The updates of one live engine event of the turn being reported. */
export function eventUpdates(event: EngineEvent, live: LiveState): acp.SessionUpdate[] {
  switch (event.type) {
    case 'item.started': {
      if (event.item.type === 'contextCompaction' && live.compaction) {
        live.compactions.add(event.item.id);
        return [{ sessionUpdate: 'compaction_update', compactionId: event.item.id, status: 'in_progress' }];
      }
      const call = toolCallOf(event.item);
      return call ? [{ sessionUpdate: 'tool_call', ...call, status: call.status === 'completed' ? 'in_progress' : call.status }] : [];
    }
    case 'item.delta':
      if (event.kind === 'commandOutput' || event.delta === '') return [];
      if (event.kind === 'agentMessage') {
        live.streamed.add(event.itemId);
        return [{ sessionUpdate: 'agent_message_chunk', content: text(event.delta), messageId: event.itemId }];
      }
      live.streamed.add(event.itemId);
      return [{ sessionUpdate: 'agent_thought_chunk', content: text(event.delta), messageId: event.itemId }];
    case 'item.completed':
      return completedItemUpdates(event.item, live);
    case 'plan.updated':
      return [...(event.explanation ? [{ sessionUpdate: 'agent_thought_chunk' as const, content: text(event.explanation) }] : []), planUpdate(event.plan)];
    case 'tokenUsage.updated':
      return event.usage.modelContextWindow === null ? [] : [{ sessionUpdate: 'usage_update', used: event.usage.last.totalTokens, size: event.usage.modelContextWindow }];
    case 'warning':
      return [{ sessionUpdate: 'agent_message_chunk', content: text(`Warning: ${event.message}\n\n`) }];
    default:
      return [];
  }
}

/** The replay of a persisted thread: every turn's items in order. */
export function replayUpdates(turns: { items: ThreadItem[] }[], view: ClientView = { compaction: false }): acp.SessionUpdate[] {
  return turns.flatMap((turn) => turn.items.flatMap((item) => completedItemUpdates(item, null, view)));
}
