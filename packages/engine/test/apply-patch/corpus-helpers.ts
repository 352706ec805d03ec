/**
 * Shared pieces of the apply_patch corpus: the fixture shape, a patch-text builder, and helpers that
 * lay out a temp workspace and read it back as a path → content map.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** One corpus case: files before, the patch, and either the files after or an error. */
export interface PatchCase {
  /** Reads as a sentence after "it". */
  name: string;
  /** Files in the workspace before the patch, relative path → content. */
  files?: Record<string, string | Buffer>;
  /** Patch text; `{cwd}` is replaced by the workspace's absolute path. */
  patch: string;
  /** Every file in the workspace afterwards (omitted for error cases: unchanged). */
  expected?: Record<string, string>;
  /** Expected success text, when the case checks it. */
  summary?: string;
  /** A substring of the expected error message. */
  error?: string;
}

/** Builds a patch from its body lines, adding the envelope. */
export function patch(...body: string[]): string {
  return ['*** Begin Patch', ...body, '*** End Patch'].join('\n');
}

/** Writes `files` under `root`, creating directories as needed. */
export async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    const absolute = path.join(root, relative);
    await mkdir(path.dirname(absolute), { recursive: true });
    await writeFile(absolute, content);
  }
}

/** Reads every regular file under `root` (latin1 for invalid UTF-8, so bytes still compare). */
export async function readTree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const absolute = path.join(entry.parentPath, entry.name);
    const bytes = await readFile(absolute);
    const text = bytes.toString('utf8');
    out[path.relative(root, absolute)] = Buffer.from(text, 'utf8').equals(bytes) ? text : bytes.toString('latin1');
  }
  return out;
}

/** The tree `files` describes, in the same form `readTree` returns. */
export function asTree(files: Record<string, string | Buffer>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [relative, content] of Object.entries(files)) {
    if (typeof content === 'string') out[path.normalize(relative)] = content;
    else {
      const text = content.toString('utf8');
      out[path.normalize(relative)] = Buffer.from(text, 'utf8').equals(content) ? text : content.toString('latin1');
    }
  }
  return out;
}
