/**
 * The `codex-reply` tool: continue a thread with the next prompt. A thread that is not in memory
 * is resumed from its rollout, so replies survive a server restart; a thread with a running turn
 * answers "busy" at once. Each reply turn gets a fresh wire id (the engine's turn id).
 */
import { errorResult, type McpApp, type ToolEntry } from '../app.js';
import { TurnCall } from '../turn-call.js';
import { parseReplyArgs } from './arguments.js';
import { CODEX_REPLY_TOOL } from './definitions.js';

/** Builds the `codex-reply` tool. */
export function codexReplyTool(app: McpApp): ToolEntry {
  return {
    definition: CODEX_REPLY_TOOL,
    async handle(raw, request) {
      const parsed = parseReplyArgs(raw);
      if (!parsed.ok) return errorResult(parsed.message);
      const { prompt, threadId, rawId } = parsed.value;
      let host;
      try {
        host = await app.host();
      } catch (error) {
        return errorResult(`Failed to load Codex configuration: ${(error as Error).message}`);
      }
      let thread;
      try {
        thread = await host.findThread(threadId);
      } catch (error) {
        if (error instanceof host.engine.ThreadNotFoundError) {
          const text = `Session not found for thread_id: ${rawId}`;
          return errorResult(text, { threadId: rawId, content: text });
        }
        return errorResult(`Failed to resume thread ${rawId}: ${(error as Error).message}`);
      }
      const call = new TurnCall({ thread, submissionId: null, settings: host.settings, approvals: app.approvals, log: app.log, onFinish: (c) => app.onCallFinished(c) });
      try {
        call.start(prompt, request.binding);
      } catch (error) {
        if (error instanceof host.engine.TurnInProgressError) {
          const text = `thread ${thread.id} is busy: a turn is still running; wait for it, or interrupt it`;
          return errorResult(text, { threadId: thread.id, content: text });
        }
        throw error;
      }
      return app.run(call, request);
    },
  };
}
