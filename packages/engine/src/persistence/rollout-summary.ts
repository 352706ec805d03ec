/**
 * What the thread index needs from one rollout, read cheaply: the `session_meta` line, the first
 * user message (the preview), the last `thread_name`, and the time of the last complete line.
 * Only the lines that can matter are parsed; markers are found with byte searches. This module
 * never writes and never builds the full replay (`rollout-reader.ts` does).
 */
import { promises as fsp } from 'node:fs';
import type { ThreadItem } from '@deputy/protocol';
import { checkRolloutLine, type RolloutLine, type SessionMetaPayload } from './rollout-line.js';

/** Longest preview kept, in characters. */
export const PREVIEW_MAX_CHARS = 200;

const NEWLINE = 0x0a;
const USER_MESSAGE_MARKER = Buffer.from('"userMessage"');
const THREAD_NAME_MARKER = Buffer.from('{"v":1,"type":"thread_name"');

/** The index-relevant facts of one rollout. */
export interface RolloutSummary {
  meta: SessionMetaPayload;
  /** First user message text, at most `PREVIEW_MAX_CHARS` characters; `''` when there is none. */
  preview: string;
  /** The last `thread_name` line's name, or null. */
  name: string | null;
  /** Time of the last complete line (Unix ms). */
  updatedAtMs: number;
}

/** The preview text of a user message item: its text parts joined, cut to `PREVIEW_MAX_CHARS`. */
export function previewOf(item: ThreadItem): string {
  if (item.type !== 'userMessage') return '';
  const text = item.content
    .flatMap((part) => (part.type === 'text' ? [part.text] : []))
    .join('\n')
    .trim();
  return Array.from(text).slice(0, PREVIEW_MAX_CHARS).join('');
}

function lineAt(data: Buffer, at: number): { start: number; end: number; complete: boolean } {
  const start = at === 0 ? 0 : data.lastIndexOf(NEWLINE, at - 1) + 1;
  const nl = data.indexOf(NEWLINE, at);
  return { start, end: nl === -1 ? data.length : nl, complete: nl !== -1 };
}

function parseAt(data: Buffer, start: number, end: number): RolloutLine | null {
  try {
    const checked = checkRolloutLine(JSON.parse(data.toString('utf8', start, end)));
    return checked.ok ? checked.line : null;
  } catch {
    return null;
  }
}

function findPreview(data: Buffer): string {
  for (let at = data.indexOf(USER_MESSAGE_MARKER); at !== -1; ) {
    const { start, end, complete } = lineAt(data, at);
    const line = complete ? parseAt(data, start, end) : null;
    if (line?.type === 'item' && line.payload.item.type === 'userMessage') return previewOf(line.payload.item);
    at = data.indexOf(USER_MESSAGE_MARKER, end);
  }
  return '';
}

function findName(data: Buffer): string | null {
  let name: string | null = null;
  for (let at = data.indexOf(THREAD_NAME_MARKER); at !== -1; ) {
    const { start, end, complete } = lineAt(data, at);
    const line = complete && start === at ? parseAt(data, start, end) : null;
    if (line?.type === 'thread_name') name = line.payload.name;
    at = data.indexOf(THREAD_NAME_MARKER, end);
  }
  return name;
}

function lastLineTime(data: Buffer, fallbackMs: number): number {
  // Walk back over complete lines until one parses; a torn tail is skipped.
  let end = data.lastIndexOf(NEWLINE);
  while (end > 0) {
    const start = data.lastIndexOf(NEWLINE, end - 1) + 1;
    const line = parseAt(data, start, end);
    if (line) {
      const ms = Date.parse(line.ts);
      if (Number.isFinite(ms)) return ms;
    }
    end = start - 1;
  }
  return fallbackMs;
}

/**
 * Summarises rollout bytes for the index. Returns null when they do not start with a valid
 * `session_meta` line (the caller reports it; the index then simply lacks the thread).
 */
export function summarizeRolloutBytes(data: Buffer): RolloutSummary | null {
  const firstEnd = data.indexOf(NEWLINE);
  if (firstEnd === -1) return null;
  const first = parseAt(data, 0, firstEnd);
  if (first?.type !== 'session_meta') return null;
  return {
    meta: first.payload,
    preview: findPreview(data),
    name: findName(data),
    updatedAtMs: lastLineTime(data, first.payload.createdAtMs),
  };
}

/** Reads and summarises one rollout file (see `summarizeRolloutBytes`). */
export async function summarizeRollout(filePath: string): Promise<RolloutSummary | null> {
  return summarizeRolloutBytes(await fsp.readFile(filePath));
}
