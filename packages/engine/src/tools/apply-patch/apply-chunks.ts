/**
 * Applies the chunks of one `*** Update File:` section to a file's text, in memory. It locates
 * each chunk with `seekSequence`, replaces the matched lines, and rebuilds the text keeping every
 * untouched line byte for byte: context lines keep the file's own text and line ending (a fuzzy
 * match never rewrites them), new lines take the file's line ending (the style of its first line
 * break, as the reference does), and the result always ends with a line break. It reads and
 * writes nothing.
 */
import { PatchApplyError } from './errors.js';
import type { PatchLine, UpdateChunk } from './parser.js';
import { seekSequence } from './seek-sequence.js';

type Eol = '\n' | '\r\n';

interface SourceLine {
  text: string;
  /** The line's terminator; '' only for a last line without one. */
  eol: Eol | '';
}

interface Replacement {
  start: number;
  /** How many file lines the chunk's old lines cover. */
  oldLength: number;
  lines: PatchLine[];
}

/**
 * Returns the file text after applying `chunks` in order.
 * @param content the current file text
 * @param chunks the update's chunks, each expected after the previous one
 * @param displayPath the file's name in error messages
 * @throws PatchApplyError when a context line or a chunk's lines cannot be found
 */
export function applyChunks(content: string, chunks: readonly UpdateChunk[], displayPath: string): string {
  const { lines, eol } = splitLines(content);
  const replacements = locateChunks(
    lines.map((line) => line.text),
    chunks,
    displayPath,
  );
  const result: SourceLine[] = [];
  let cursor = 0;
  for (const { start, oldLength, lines: chunkLines } of replacements) {
    result.push(...lines.slice(cursor, start));
    let source = start;
    for (const line of chunkLines) {
      if (line.kind === 'add') {
        result.push({ text: line.text, eol });
        continue;
      }
      const original = lines[source];
      source += 1;
      if (line.kind === 'context' && original) result.push(original);
    }
    cursor = start + oldLength;
  }
  result.push(...lines.slice(cursor));
  // Updated files always end with a line break (reference behaviour); this also terminates a
  // formerly-last line that an insertion moved inward.
  return result.map((line) => line.text + (line.eol === '' ? eol : line.eol)).join('');
}

/** Splits text into lines with their terminators; the line-ending style is that of the first break. */
function splitLines(content: string): { lines: SourceLine[]; eol: Eol } {
  const lines: SourceLine[] = [];
  let eol: Eol | null = null;
  let lineStart = 0;
  for (let nl = content.indexOf('\n'); nl !== -1; nl = content.indexOf('\n', lineStart)) {
    const isCrlf = nl > lineStart && content[nl - 1] === '\r';
    const lineEol: Eol = isCrlf ? '\r\n' : '\n';
    eol ??= lineEol;
    lines.push({ text: content.slice(lineStart, isCrlf ? nl - 1 : nl), eol: lineEol });
    lineStart = nl + 1;
  }
  if (lineStart < content.length) lines.push({ text: content.slice(lineStart), eol: '' });
  return { lines, eol: eol ?? '\n' };
}

function locateChunks(lines: readonly string[], chunks: readonly UpdateChunk[], displayPath: string): Replacement[] {
  const replacements: Replacement[] = [];
  let lineIndex = 0;
  chunks.forEach((chunk, index) => {
    const chunkNumber = index + 1;
    for (const context of chunk.contexts) {
      const found = seekSequence(lines, [context], lineIndex, false);
      if (found === null) {
        throw new PatchApplyError(`Failed to find context '${context}' in ${displayPath} (hunk ${chunkNumber})`, {
          path: displayPath,
          chunk: chunkNumber,
        });
      }
      lineIndex = found + 1;
    }
    if (chunk.oldLines.length === 0) {
      replacements.push({ start: insertionPoint(lines, chunk, lineIndex), oldLength: 0, lines: chunk.lines });
      return;
    }
    const match = matchChunk(lines, chunk, lineIndex);
    if (match === null) {
      throw new PatchApplyError(
        `Failed to find expected lines in ${displayPath} (hunk ${chunkNumber}):\n${chunk.oldLines.join('\n')}`,
        { path: displayPath, chunk: chunkNumber },
      );
    }
    replacements.push(match);
    lineIndex = match.start + match.oldLength;
  });
  // Pure insertions land at the end of the file, possibly before chunks found later in it.
  return replacements.sort((a, b) => a.start - b.start);
}

/**
 * Where a chunk without old lines goes: right after its `@@` context when it names one, else at
 * the end of the file (before a final empty line, as the reference does).
 */
function insertionPoint(lines: readonly string[], chunk: UpdateChunk, lineIndex: number): number {
  if (chunk.contexts.length > 0 && !chunk.isEndOfFile) return lineIndex;
  return lines.length > 0 && lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
}

function matchChunk(lines: readonly string[], chunk: UpdateChunk, lineIndex: number): Replacement | null {
  const found = seekSequence(lines, chunk.oldLines, lineIndex, chunk.isEndOfFile);
  if (found !== null) return { start: found, oldLength: chunk.oldLines.length, lines: chunk.lines };
  if (chunk.oldLines[chunk.oldLines.length - 1] !== '') return null;
  // A trailing empty old line often stands for the file's final line break, which is not a line
  // of its own here; retry without it (reference behaviour).
  const trimmed = dropTrailingEmptyOldLine(chunk.lines);
  const oldLines = trimmed.filter((line) => line.kind !== 'add').map((line) => line.text);
  const retry = seekSequence(lines, oldLines, lineIndex, chunk.isEndOfFile);
  return retry === null ? null : { start: retry, oldLength: oldLines.length, lines: trimmed };
}

/** Removes the last old-side line (an empty one); a context line followed by additions stays as an addition. */
function dropTrailingEmptyOldLine(lines: readonly PatchLine[]): PatchLine[] {
  let last = -1;
  lines.forEach((line, i) => {
    if (line.kind !== 'add') last = i;
  });
  const target = lines[last];
  if (!target) return [...lines];
  const isFinal = last === lines.length - 1;
  const keep: PatchLine[] = target.kind === 'context' && !isFinal ? [{ kind: 'add', text: '' }] : [];
  return [...lines.slice(0, last), ...keep, ...lines.slice(last + 1)];
}
