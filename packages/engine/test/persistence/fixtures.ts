/** Shared fixtures of the persistence tests: temp homes, session metadata and canned lines. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { rolloutLine, type RolloutLine, type SessionMetaPayload } from '../../src/persistence/rollout-line.js';
import type { ThreadRow } from '../../src/persistence/thread-index.js';

/** Creates a temp home; remove it with `removeHome`. */
export async function makeHome(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'deputy-persist-'));
}

/** Removes a temp home. */
export async function removeHome(home: string): Promise<void> {
  await fs.rm(home, { recursive: true, force: true });
}

/** Session metadata with test defaults. */
export function makeMeta(overrides: Partial<SessionMetaPayload> = {}): SessionMetaPayload {
  return {
    id: uuidv7(),
    createdAtMs: Date.UTC(2025, 4, 7, 12, 30, 15),
    cwd: '/work/project',
    model: 'gpt-5-codex',
    modelProvider: 'openai',
    source: 'vscode',
    forkedFromId: null,
    cliVersion: '0.1.0',
    approvalPolicy: 'on-request',
    sandboxMode: 'workspace-write',
    reasoningEffort: 'medium',
    baseInstructions: null,
    developerInstructions: null,
    ...overrides,
  };
}

/** The lines of one small turn: start, user message (item + model history), answer, end. */
export function turnLines(turnId: string, userText: string, atMs: number): RolloutLine[] {
  return [
    rolloutLine('turn_started', { turnId, startedAtMs: atMs, model: 'gpt-5-codex', cwd: '/work/project' }, atMs),
    rolloutLine('response_item', { turnId, item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: userText }] } }, atMs),
    rolloutLine('item', { turnId, item: { type: 'userMessage', id: `${turnId}-u`, content: [{ type: 'text', text: userText }] }, completedAtMs: atMs }, atMs),
    rolloutLine('item', { turnId, item: { type: 'agentMessage', id: `${turnId}-a`, text: 'done', phase: 'final_answer' }, completedAtMs: atMs + 5 }, atMs + 5),
    rolloutLine(
      'turn_ended',
      { turn: { id: turnId, status: 'completed', error: null, startedAtMs: atMs, completedAtMs: atMs + 10, lastAgentMessage: 'done' } },
      atMs + 10,
    ),
  ];
}

/** A thread index row with test defaults (`thread number n`, created at 1000 + n). */
export function indexRow(n: number, overrides: Partial<ThreadRow> = {}): ThreadRow {
  const id = `0000-${String(n).padStart(4, '0')}`;
  return {
    id,
    createdAtMs: 1_000 + n,
    updatedAtMs: 5_000 + n,
    cwd: '/a',
    modelProvider: 'openai',
    model: 'gpt-5',
    source: 'vscode',
    preview: `thread number ${n}`,
    name: null,
    archived: false,
    path: `/home/sessions/rollout-${id}.jsonl`,
    forkedFromId: null,
    ...overrides,
  };
}
