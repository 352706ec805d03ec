/**
 * Parses apply_patch text into hunks (one per file section) without touching the file system.
 * It owns the grammar and its leniencies: markers may carry surrounding whitespace, the patch may
 * sit inside a heredoc wrapper (`<<'EOF'` … `EOF`), the first chunk of an update may omit `@@`,
 * consecutive `@@ context` lines narrow the search, and blank separator lines are ignored. Whether
 * the hunks fit the files on disk is decided later, in `apply-chunks.ts` and `apply.ts`.
 */
import { PatchParseError } from './errors.js';

const BEGIN_PATCH = '*** Begin Patch';
const END_PATCH = '*** End Patch';
const ADD_FILE = '*** Add File: ';
const DELETE_FILE = '*** Delete File: ';
const UPDATE_FILE = '*** Update File: ';
const MOVE_TO = '*** Move to: ';
const END_OF_FILE = '*** End of File';

/** One line of an update chunk: kept (` `), removed (`-`) or added (`+`). */
export interface PatchLine {
  kind: 'context' | 'remove' | 'add';
  /** The line without its one-character prefix. */
  text: string;
}

/** One `@@` section of an `*** Update File:` hunk. */
export interface UpdateChunk {
  /** Texts of the `@@ <context>` lines, outermost first; each is sought after the previous one. */
  contexts: string[];
  /** The chunk's lines in order. */
  lines: PatchLine[];
  /** Lines the file must contain (context + removed), in order. */
  oldLines: string[];
  /** Lines that replace them (context + added), in order. */
  newLines: string[];
  /** True when the chunk ended with `*** End of File`: its lines belong at the end of the file. */
  isEndOfFile: boolean;
}

/** One file section of a patch. Paths are as written (relative to the cwd, or absolute). */
export type PatchHunk =
  | { type: 'add'; path: string; contents: string }
  | { type: 'delete'; path: string }
  | { type: 'update'; path: string; movePath: string | null; chunks: UpdateChunk[] };

/** A parsed patch. */
export interface Patch {
  hunks: PatchHunk[];
  /** The patch text from `*** Begin Patch` to `*** End Patch`, without any heredoc wrapper. */
  text: string;
}

/**
 * Parses a complete patch.
 * @param text the patch, possibly padded with whitespace or wrapped in a heredoc
 * @throws PatchParseError naming the line and what was expected there
 */
export function parsePatch(text: string): Patch {
  const lines = envelopeLines(text.trim().split(/\r?\n/));
  const hunks: PatchHunk[] = [];
  const end = lines.length - 1;
  let i = 1;
  while (i < end) {
    // Blank lines between file sections carry nothing; the reference rejects them, we skip them.
    if ((lines[i] ?? '').trim() === '') {
      i += 1;
      continue;
    }
    const parsed = parseHunk(lines, i, end);
    hunks.push(parsed.hunk);
    i = parsed.next;
  }
  return { hunks, text: lines.join('\n') };
}

/** Returns the lines from `*** Begin Patch` to `*** End Patch`, unwrapping a heredoc if needed. */
function envelopeLines(lines: string[]): string[] {
  const strictError = checkEnvelope(lines);
  if (strictError === null) return lines;
  // Lenient mode as in the reference: models (gpt-4.1 notably) send `<<'EOF'\n…\nEOF` as the body.
  const first = (lines[0] ?? '').trim();
  const heredoc = /^(?:(?:apply_patch|applypatch)\s+)?<<-?\s*(['"]?)([A-Za-z_][\w.-]*)\1$/.exec(first);
  const last = (lines[lines.length - 1] ?? '').trim();
  if (heredoc && lines.length >= 4 && last === heredoc[2]) {
    const inner = lines.slice(1, -1);
    const innerError = checkEnvelope(inner);
    if (innerError === null) return inner;
    throw innerError;
  }
  throw strictError;
}

function checkEnvelope(lines: string[]): PatchParseError | null {
  const first = (lines[0] ?? '').trim();
  const last = (lines[lines.length - 1] ?? '').trim();
  if (first !== BEGIN_PATCH) return new PatchParseError(`The first line of the patch must be '${BEGIN_PATCH}'`);
  if (lines.length < 2 || last !== END_PATCH) {
    return new PatchParseError(`The last line of the patch must be '${END_PATCH}'`);
  }
  return null;
}

/** Parses the file section starting at `lines[i]`; `end` is the index of `*** End Patch`. */
function parseHunk(lines: string[], i: number, end: number): { hunk: PatchHunk; next: number } {
  const header = (lines[i] ?? '').trim();
  if (header.startsWith(ADD_FILE)) {
    const body: string[] = [];
    let j = i + 1;
    for (; j < end && (lines[j] ?? '').startsWith('+'); j += 1) body.push((lines[j] ?? '').slice(1));
    const contents = body.map((line) => `${line}\n`).join('');
    return { hunk: { type: 'add', path: header.slice(ADD_FILE.length).trim(), contents }, next: j };
  }
  if (header.startsWith(DELETE_FILE)) {
    return { hunk: { type: 'delete', path: header.slice(DELETE_FILE.length).trim() }, next: i + 1 };
  }
  if (header.startsWith(UPDATE_FILE)) return parseUpdate(lines, i, end, header.slice(UPDATE_FILE.length).trim());
  throw new PatchParseError(
    `'${header}' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'`,
    i + 1,
  );
}

function parseUpdate(lines: string[], i: number, end: number, path: string): { hunk: PatchHunk; next: number } {
  let j = i + 1;
  let movePath: string | null = null;
  const moveLine = (lines[j] ?? '').trim();
  if (j < end && moveLine.startsWith(MOVE_TO)) {
    movePath = moveLine.slice(MOVE_TO.length).trim();
    j += 1;
  }
  const chunks: UpdateChunk[] = [];
  while (j < end) {
    const line = lines[j] ?? '';
    if (line.trim() === '') {
      j += 1;
      continue;
    }
    if (line.startsWith('*')) break;
    const parsed = parseChunk(lines, j, end, chunks.length === 0);
    chunks.push(parsed.chunk);
    j = parsed.next;
  }
  if (chunks.length === 0) throw new PatchParseError(`Update file hunk for path '${path}' is empty`, i + 1);
  return { hunk: { type: 'update', path, movePath, chunks }, next: j };
}

/** True for `@@`, `@@ <context>` and unified-diff headers such as `@@ -3,4 +3,5 @@`. */
function isChunkMarker(line: string): boolean {
  return line.trim() === '@@' || line.startsWith('@@ ');
}

/** The context a marker names, or null for a bare `@@` (or a unified-diff header without text). */
function markerContext(line: string): string | null {
  if (!line.startsWith('@@ ')) return null;
  let rest = line.slice(3);
  // Models trained on git diffs sometimes write line-number headers; they carry no usable position.
  const unified = /^-\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$/.exec(rest);
  if (unified) rest = unified[1] ?? '';
  return rest.trim() === '' ? null : rest;
}

function parseChunk(
  lines: string[],
  start: number,
  end: number,
  allowMissingMarker: boolean,
): { chunk: UpdateChunk; next: number } {
  const contexts: string[] = [];
  let j = start;
  for (; j < end && isChunkMarker(lines[j] ?? ''); j += 1) {
    const context = markerContext(lines[j] ?? '');
    if (context !== null) contexts.push(context);
  }
  if (j === start && !allowMissingMarker) {
    throw new PatchParseError(`Expected update hunk to start with a @@ context marker, got: '${lines[j] ?? ''}'`, j + 1);
  }
  if (j >= end) throw new PatchParseError('Update hunk does not contain any lines', j + 1);

  const body: Array<PatchLine & { isBlank: boolean }> = [];
  let isEndOfFile = false;
  for (; j < end; j += 1) {
    const line = lines[j] ?? '';
    if (line.trim() === END_OF_FILE) {
      if (body.length === 0) throw new PatchParseError('Update hunk does not contain any lines', j + 1);
      isEndOfFile = true;
      j += 1;
      break;
    }
    const prefix = line[0];
    if (line === '') body.push({ kind: 'context', text: '', isBlank: true });
    else if (prefix === ' ') body.push({ kind: 'context', text: line.slice(1), isBlank: false });
    else if (prefix === '+') body.push({ kind: 'add', text: line.slice(1), isBlank: false });
    else if (prefix === '-') body.push({ kind: 'remove', text: line.slice(1), isBlank: false });
    else if (body.length === 0) {
      throw new PatchParseError(
        `Unexpected line found in update hunk: '${line}'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)`,
        j + 1,
      );
    } else break;
  }
  // Empty lines at the end of a chunk separate it from the next one; they are not context.
  while (body.length > 0 && body[body.length - 1]?.isBlank === true) body.pop();
  const chunkLines = body.map(({ kind, text }) => ({ kind, text }));
  return {
    chunk: {
      contexts,
      lines: chunkLines,
      oldLines: chunkLines.filter((l) => l.kind !== 'add').map((l) => l.text),
      newLines: chunkLines.filter((l) => l.kind !== 'remove').map((l) => l.text),
      isEndOfFile,
    },
    next: j,
  };
}
