/**
 * Handler of `thread/shellCommand` (the Codex TUI's `!command`): the user's own shell line runs
 * in the thread's shell, unsandboxed, as a `commandExecution` item with `source: "userShell"`,
 * in a turn of its own or in the turn that is running (`Thread.runUserShellCommand`). The
 * answer is `{}` once the command has started; while it is answered the thread's delivery is
 * held, so the response precedes the notifications the command causes.
 */
import { RpcError } from '@deputy/rpc/core';
import { afterResponse, type AppContext } from '../app-context.js';
import { requireLoaded } from './common.js';
import type { Handlers } from './types.js';

/** The handlers of this area. */
export function shellCommandHandlers(app: AppContext): Handlers {
  return {
    'thread/shellCommand': (params, ctx) => {
      // As the reference: the line is trimmed and an empty one refused before the thread is looked up.
      if (params.command.trim() === '') throw RpcError.invalidRequest('command must not be empty');
      const thread = requireLoaded(app, params.threadId);
      afterResponse(ctx, app.router.hold(thread.id));
      // Not awaited: the command's item (and turn, when it has its own) follows as notifications.
      thread.runUserShellCommand(params.command);
      return {};
    },
  };
}
