/**
 * The editor's files, as a front door can offer them to `apply_patch` (ACP's `fs/*`): an editor
 * holds files' unsaved text and can write files into its buffers, so its review of edits lists
 * them and its buffers never go stale. The engine keeps every decision: it checks a patch's paths
 * against the writable roots and asks for approval as always, and only then hands the writes of
 * files inside the writable roots (that the editor also `covers`) to the editor; deletions,
 * moves and every other path are written on disk. Before approval, a file the editor holds with
 * text that differs from the disk fails the patch instead of overwriting unsaved work.
 */

/** One thread's editor. */
export interface ThreadEditor {
  /** Whether the editor may see this resolved absolute path (inside the session's roots). */
  covers(absPath: string): boolean;
  /** The file's text as the editor holds it (unsaved edits included); null when the editor cannot read files. */
  read: ((absPath: string, signal: AbortSignal) => Promise<string>) | null;
  /** Writes (creating) the file through the editor; null when the editor cannot write files. */
  write: ((absPath: string, content: string, signal: AbortSignal) => Promise<void>) | null;
}

/** The front door's editors, by thread. */
export interface EditorFiles {
  /** The thread's editor, or null when its files are only on disk. */
  forThread(threadId: string): ThreadEditor | null;
}
