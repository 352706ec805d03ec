/**
 * What the shell and patch tools of one thread share: the thread's exec sessions, its
 * "approved for this session" memory, the home's remembered prefix rules, and the environment
 * children get. One instance per thread, built with the thread's tools (`EngineRuntime.
 * createThreadServices`); the thread's deps carry the same exec sessions (`ThreadDeps.
 * execSessions`), so a front door can clean a thread's background terminals without reaching
 * into the turn loop or the tools.
 */
import type { ShellSnapshots } from '../../exec/shell-snapshot.js';
import type { PrefixRules } from '../../approvals/rules.js';
import type { SessionApprovals } from '../../approvals/session-approvals.js';
import type { ExecSessionManager } from '../../exec/exec-session.js';
import type { Thread } from '../../thread/thread.js';
import type { EditorFiles } from '../editor-files.js';

/** Per-thread services of the shell and patch tools. */
export interface ShellServices {
  sessions: ExecSessionManager;
  sessionApprovals: SessionApprovals;
  rules: PrefixRules;
  /** The environment a child process gets (after shell_environment_policy). */
  childEnv(): Record<string, string>;
  /** Paths hidden inside the sandbox (as for `sessions`); apply_patch's sandboxed writer hides them too. */
  sandboxHiddenPaths?: readonly string[];
  /** The thread's login-shell snapshots: `-lc` commands source one instead of starting a login shell. Absent: always the login shell. */
  shellSnapshots?: ShellSnapshots;
  /** The front door's editor files: apply_patch reads and writes through them (`editor-files.ts`). Absent: the disk only. */
  editorFiles?: EditorFiles;
}

/**
 * Kills the thread's background terminals: every exec session `exec_command` left running (see
 * `ExecSessionManager.cleanBackground`). Resolves, once their process groups are gone, with how
 * many were still running; 0 for a thread without exec sessions.
 */
export async function cleanBackgroundTerminals(thread: Pick<Thread, 'deps'>): Promise<number> {
  return (await thread.deps.execSessions?.cleanBackground()) ?? 0;
}
