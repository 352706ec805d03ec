/**
 * What the shell and patch tools of one thread share: the thread's exec sessions, its
 * "approved for this session" memory, the home's remembered prefix rules, and the environment
 * children get. One instance per thread; `close()` kills the thread's processes.
 */
import type { PrefixRules } from '../../approvals/rules.js';
import type { SessionApprovals } from '../../approvals/session-approvals.js';
import type { ExecSessionManager } from '../../exec/exec-session.js';

/** Per-thread services of the shell and patch tools. */
export interface ShellServices {
  sessions: ExecSessionManager;
  sessionApprovals: SessionApprovals;
  rules: PrefixRules;
  /** The environment a child process gets (after shell_environment_policy). */
  childEnv(): Record<string, string>;
}
