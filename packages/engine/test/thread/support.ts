/**
 * Shared helpers of the thread tests: reading a rollout file as raw JSONL lines, finding events,
 * checking that a recorded model request is valid (every tool call answered), and probing
 * whether a process group still exists.
 */
import { readFile } from 'node:fs/promises';
import type { EngineEvent } from '@deputy/protocol';
import { functionCalls, functionOutputs, type RecordedRequest } from '@deputy/test-support';

/** One raw rollout line. */
export interface RawLine {
  type: string;
  payload: Record<string, unknown>;
}

/** Reads a rollout file as JSON lines, skipping a torn last line. */
export async function readRolloutLines(path: string): Promise<RawLine[]> {
  const text = await readFile(path, 'utf8');
  const lines: RawLine[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    try {
      lines.push(JSON.parse(raw) as RawLine);
    } catch {
      // a torn line: the reader under test must cope; here we just skip it
    }
  }
  return lines;
}

/** The events of one type, narrowed. */
export function ofType<T extends EngineEvent['type']>(events: EngineEvent[], type: T): Extract<EngineEvent, { type: T }>[] {
  return events.filter((e): e is Extract<EngineEvent, { type: T }> => e.type === type);
}

/** Call ids of tool calls in a request that have no output (should be empty for a valid request). */
export function unansweredCalls(request: RecordedRequest): string[] {
  const answered = new Set(functionOutputs(request).map((o) => o.call_id));
  return functionCalls(request)
    .map((c) => c.call_id)
    .filter((id) => !answered.has(id));
}

/** True while any process of group `pgid` exists (zombies included). */
export function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Kills a process group, ignoring errors (cleanup). */
export function killGroupQuietly(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** All the text of a Responses request's input items, joined (for "contains" checks). */
export function requestText(request: RecordedRequest): string {
  return JSON.stringify(request.body.input ?? request.body.messages ?? []);
}
