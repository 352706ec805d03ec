/**
 * Params and result of `thread/shellCommand`, the Codex TUI's `!command`: a shell command the
 * user runs in a thread. The answer is `{}` at once; the command follows as a `commandExecution`
 * item with `source: "userShell"` (`item/started`, `item/commandExecution/outputDelta`,
 * `item/completed`), inside a turn of its own or inside the turn that is running.
 */
import { z } from 'zod';

/** `thread/shellCommand` params. */
export const ThreadShellCommandParamsSchema = z.object({
  /** The thread (must be loaded). */
  threadId: z.string(),
  /**
   * Shell command string evaluated by the thread's configured shell. Unlike `command/exec`, this
   * intentionally preserves shell syntax such as pipes, redirects, and quoting. This runs
   * unsandboxed with full access rather than inheriting the thread sandbox policy.
   */
  command: z.string(),
});
export type ThreadShellCommandParams = z.infer<typeof ThreadShellCommandParamsSchema>;

/** `thread/shellCommand` result: an empty object, sent once the command has started. */
export const ThreadShellCommandResultSchema = z.object({});
export type ThreadShellCommandResult = z.infer<typeof ThreadShellCommandResultSchema>;
