/**
 * What the shell and patch tools of one thread share: the thread's exec sessions, its
 * "approved for this session" memory, the home's remembered prefix rules, and the environment
 * children get. One instance per thread; `close()` kills the thread's processes. The services
 * are found again from the thread's tool registry (recorded when the tools are built), so a
 * front door can clean a thread's background terminals without reaching into the turn loop.
 */
import type { PrefixRules } from '../../approvals/rules.js';
import type { SessionApprovals } from '../../approvals/session-approvals.js';
import type { ExecSessionManager } from '../../exec/exec-session.js';
import type { Thread } from '../../thread/thread.js';
import type { ToolRegistry } from '../registry.js';

/** Per-thread services of the shell and patch tools. */
export interface ShellServices {
  sessions: ExecSessionManager;
  sessionApprovals: SessionApprovals;
  rules: PrefixRules;
  /** The environment a child process gets (after shell_environment_policy). */
  childEnv(): Record<string, string>;
  /** Paths hidden inside the sandbox (as for `sessions`); apply_patch's sandboxed writer hides them too. */
  sandboxHiddenPaths?: readonly string[];
}

/** The services each thread's tool registry was built with; weak, so closed threads drop out. */
const servicesByTools = new WeakMap<ToolRegistry, ShellServices>();

/** Records that `tools` were built on `services` (once per thread, where the tools are built). */
export function registerShellServices(tools: ToolRegistry, services: ShellServices): void {
  servicesByTools.set(tools, services);
}

/**
 * Kills the thread's background terminals: every exec session `exec_command` left running (see
 * `ExecSessionManager.cleanBackground`). Resolves, once their process groups are gone, with how
 * many were still running; 0 for a thread whose tools have no exec sessions.
 */
export async function cleanBackgroundTerminals(thread: Pick<Thread, 'deps'>): Promise<number> {
  const services = servicesByTools.get(thread.deps.tools);
  return services === undefined ? 0 : services.sessions.cleanBackground();
}
