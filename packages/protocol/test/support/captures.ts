/**
 * Reads the captured reference traffic (`test/fixtures/app-server/captures/`, or the directory
 * named by `DEPUTY_CAPTURES_DIR`) into a flat list of messages, each response paired with the
 * method of the request it answers. Test-only; it validates nothing itself.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Who sent a message. */
export type Direction = 'c2s' | 's2c';

/** One captured JSON-RPC message, classified. */
export interface CapturedMessage {
  /** Capture file, relative to the captures directory (e.g. `app-server/02-threads.jsonl`). */
  readonly file: string;
  /** 1-based line in that file. */
  readonly line: number;
  /** Sender. */
  readonly direction: Direction;
  /** Envelope kind. */
  readonly kind: 'request' | 'notification' | 'result' | 'error';
  /** The method; for results and errors, the method of the request they answer (if found). */
  readonly method: string | undefined;
  /** The request's `params`, the `result`, or the `error` object. */
  readonly payload: unknown;
  /** The answer to this request, filled for requests that got one. */
  readonly answer?: CapturedMessage;
}

/** Directory holding `app-server/` and `tui/` capture files. */
export const CAPTURES_DIR =
  process.env['DEPUTY_CAPTURES_DIR'] ?? fileURLToPath(new URL('../fixtures/app-server/captures/', import.meta.url));

interface RawLine {
  readonly direction: Direction;
  readonly connection: string;
  readonly message: Record<string, unknown>;
  readonly line: number;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Pulls the JSON-RPC messages out of one capture line (app-server or TUI format). */
function messagesOf(entry: Record<string, unknown>, line: number): RawLine[] {
  const direction = entry['dir'];
  if (direction !== 'c2s' && direction !== 's2c') return [];
  const connection = String(entry['conn'] ?? 0);
  const message = entry['msg'] ?? entry['json'];
  if (isObject(message)) return [{ direction, connection, message, line }];
  const raw = entry['raw'];
  if (typeof raw !== 'string') return [];
  // Raw lines record bytes sent as-is; only complete newline-separated JSON objects count.
  const found: RawLine[] = [];
  for (const piece of raw.split('\n')) {
    try {
      const parsed: unknown = JSON.parse(piece);
      if (isObject(parsed)) found.push({ direction, connection, message: parsed, line });
    } catch {
      // Not a message (malformed on purpose, truncated, or two values on one line).
    }
  }
  return found;
}

function captureFiles(): string[] {
  const files: string[] = [];
  for (const folder of ['app-server', 'tui']) {
    for (const name of readdirSync(join(CAPTURES_DIR, folder)).sort()) {
      if (name.endsWith('.jsonl')) files.push(`${folder}/${name}`);
    }
  }
  return files;
}

function readFile(file: string): CapturedMessage[] {
  const out: CapturedMessage[] = [];
  // Pending requests per connection and sender, keyed by the JSON text of their id.
  const pending = new Map<string, { method: string; index: number }>();
  const lines = readFileSync(join(CAPTURES_DIR, file), 'utf8').split('\n');
  lines.forEach((text, index) => {
    if (text.trim() === '') return;
    const entry: unknown = JSON.parse(text);
    if (!isObject(entry)) return;
    for (const { direction, connection, message, line } of messagesOf(entry, index + 1)) {
      const method = typeof message['method'] === 'string' ? message['method'] : undefined;
      const hasId = Object.hasOwn(message, 'id');
      if (method !== undefined) {
        const kind = hasId ? 'request' : 'notification';
        if (hasId) pending.set(`${connection}|${direction}|${JSON.stringify(message['id'])}`, { method, index: out.length });
        out.push({ file, line, direction, kind, method, payload: message['params'] });
        continue;
      }
      if (!hasId) continue;
      const requester = direction === 's2c' ? 'c2s' : 's2c';
      const key = `${connection}|${requester}|${JSON.stringify(message['id'])}`;
      const request = pending.get(key);
      pending.delete(key);
      const isResult = Object.hasOwn(message, 'result');
      const answer: CapturedMessage = {
        file,
        line,
        direction,
        kind: isResult ? 'result' : 'error',
        method: request?.method,
        payload: isResult ? message['result'] : message['error'],
      };
      out.push(answer);
      if (request !== undefined) {
        const asked = out[request.index];
        if (asked !== undefined) out[request.index] = { ...asked, answer };
      }
    }
  });
  return out;
}

let cache: CapturedMessage[] | undefined;

/** Every captured message of every capture file, in file order. */
export function readCaptures(): readonly CapturedMessage[] {
  cache ??= captureFiles().flatMap(readFile);
  return cache;
}
