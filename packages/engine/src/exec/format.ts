/**
 * The model-facing text of a command result: the `Chunk ID / Wall time / Process … / Original token
 * count / Output:` layout that Codex CLI 0.130.0 returns from `exec_command` and `write_stdin`,
 * the middle-cutting truncation that keeps the output within the model's token budget, and the
 * 4-bytes-per-token estimate both use. Pure functions; nothing here runs processes.
 */
import { randomBytes } from 'node:crypto';
import { constants as osConstants } from 'node:os';

/** Bytes per token of the approximation used everywhere a token count is estimated. */
export const APPROX_BYTES_PER_TOKEN = 4;

/** Default `max_output_tokens` when the model gives none (reference: 10 000). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 10_000;

/** Hard cap on the bytes of output kept for one snapshot (reference: 1 MiB). */
export const EXEC_OUTPUT_MAX_BYTES = 1024 * 1024;

/** The token budget that corresponds to {@link EXEC_OUTPUT_MAX_BYTES}; larger requests are clamped. */
export const EXEC_OUTPUT_MAX_TOKENS = EXEC_OUTPUT_MAX_BYTES / APPROX_BYTES_PER_TOKEN;

/** Approximate token count of `text`: ceil(UTF-8 bytes / 4). */
export function approxTokenCount(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / APPROX_BYTES_PER_TOKEN);
}

/** A random 6-hex-digit id for one output chunk. */
export function generateChunkId(): string {
  return randomBytes(3).toString('hex');
}

/** Resolves a requested output budget: default when absent or invalid, clamped to the byte cap. */
export function resolveMaxOutputTokens(maxOutputTokens?: number): number {
  if (maxOutputTokens === undefined || !Number.isFinite(maxOutputTokens) || maxOutputTokens < 0) {
    return DEFAULT_MAX_OUTPUT_TOKENS;
  }
  return Math.min(Math.floor(maxOutputTokens), EXEC_OUTPUT_MAX_TOKENS);
}

/** True when `byte` continues a multi-byte UTF-8 sequence (0b10xxxxxx). */
function isContinuationByte(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/** Largest char boundary ≤ `index`. */
function floorCharBoundary(buf: Buffer, index: number): number {
  let i = Math.min(index, buf.length);
  while (i > 0 && i < buf.length && isContinuationByte(buf[i])) i -= 1;
  return i;
}

/** Smallest char boundary ≥ `index`. */
function ceilCharBoundary(buf: Buffer, index: number): number {
  let i = Math.max(index, 0);
  while (i < buf.length && isContinuationByte(buf[i])) i += 1;
  return i;
}

/**
 * Cuts the middle out of `text` so that at most `maxTokens × 4` bytes of it remain, keeping equal
 * budgets of head and tail. Cuts snap to line boundaries when a newline lies in the outer half of
 * the kept region (otherwise to UTF-8 character boundaries), and the cut is replaced by a marker line
 * `…N tokens truncated…`. Text within budget is returned unchanged; otherwise the result starts
 * with `Total output lines: L` and a blank line, as the reference does.
 */
export function truncateForModel(text: string, maxTokens: number = DEFAULT_MAX_OUTPUT_TOKENS): string {
  const budget = resolveMaxOutputTokens(maxTokens) * APPROX_BYTES_PER_TOKEN;
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= budget) return text;
  const totalLines = countLines(text);
  const header = `Total output lines: ${totalLines}\n\n`;
  if (budget === 0) return `${header}…${approxTokenCount(text)} tokens truncated…`;

  const leftBudget = Math.floor(budget / 2);
  const rightBudget = budget - leftBudget;

  let headEnd = floorCharBoundary(buf, leftBudget);
  const lastNewline = buf.subarray(0, headEnd).lastIndexOf(0x0a);
  // Prefer whole lines, but never give up more than half of a side's budget for it.
  if (lastNewline >= 0 && lastNewline + 1 >= leftBudget / 2) headEnd = lastNewline + 1;

  let tailStart = ceilCharBoundary(buf, buf.length - rightBudget);
  const isLineStart = tailStart === 0 || buf[tailStart - 1] === 0x0a;
  const firstNewline = buf.indexOf(0x0a, tailStart);
  if (!isLineStart && firstNewline >= 0 && firstNewline + 1 < buf.length && firstNewline - tailStart <= rightBudget / 2) {
    tailStart = firstNewline + 1;
  }
  if (tailStart < headEnd) tailStart = headEnd;

  const head = buf.subarray(0, headEnd).toString('utf8');
  const tail = buf.subarray(tailStart).toString('utf8');
  const removedTokens = Math.ceil((tailStart - headEnd) / APPROX_BYTES_PER_TOKEN);
  const separator = head === '' || head.endsWith('\n') ? '' : '\n';
  return `${header}${head}${separator}…${removedTokens} tokens truncated…\n${tail}`;
}

/** Number of lines as the reference counts them (a trailing newline does not open a new line). */
function countLines(text: string): number {
  if (text === '') return 0;
  let lines = 0;
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) === 10) lines += 1;
  return text.endsWith('\n') ? lines : lines + 1;
}

/** The fields of a snapshot the model-facing text needs. */
export interface ExecOutputView {
  /** Non-null while the process still runs. */
  sessionId: number | null;
  exitCode: number | null;
  signal: string | null;
  /** Output already truncated for the model. */
  output: string;
  originalTokenCount: number;
  wallTimeMs: number;
  aborted: boolean;
  timedOut: boolean;
}

/**
 * The exit code shown to the model: the real code, or 128 + signal number for a process killed by
 * a signal (the shell convention), or -1 when neither is known.
 */
export function displayExitCode(view: Pick<ExecOutputView, 'exitCode' | 'signal'>): number {
  if (view.exitCode !== null) return view.exitCode;
  if (view.signal !== null) {
    const signals = osConstants.signals as Record<string, number | undefined>;
    const number = signals[view.signal];
    if (number !== undefined) return 128 + number;
  }
  return -1;
}

/**
 * Renders a snapshot for the model, exactly:
 * ```
 * Chunk ID: 6d958e
 * Wall time: 0.0000 seconds
 * Process exited with code 0        (or: Process running with session ID <n>)
 * Original token count: 5
 * Output:
 * <output>
 * ```
 * An aborted or timed-out process gets a last output line saying so, so the model never mistakes
 * a killed command for a finished one.
 */
export function formatExecOutput(view: ExecOutputView, chunkId: string = generateChunkId()): string {
  const lines = [`Chunk ID: ${chunkId}`, `Wall time: ${(view.wallTimeMs / 1000).toFixed(4)} seconds`];
  if (view.sessionId !== null) lines.push(`Process running with session ID ${view.sessionId}`);
  else lines.push(`Process exited with code ${displayExitCode(view)}`);
  lines.push(`Original token count: ${view.originalTokenCount}`, 'Output:');
  let output = view.output;
  const note = view.timedOut ? 'command timed out' : view.aborted ? 'command aborted' : null;
  if (note !== null) output = `${output}${output === '' || output.endsWith('\n') ? '' : '\n'}[${note}]`;
  lines.push(output);
  return lines.join('\n');
}
