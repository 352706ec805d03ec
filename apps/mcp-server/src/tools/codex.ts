/**
 * The `codex` tool: parse the arguments, create a thread with the call's configuration, and run
 * the prompt as its first turn. The turn's wire id is the request id as a string, and the stream
 * opens with `session_configured`, as in the reference. Failures are `isError` results.
 */
import { errorResult, type McpApp, type ToolEntry } from '../app.js';
import { McpStartupTracker, projectSessionStart } from '../project-events.js';
import { TurnCall } from '../turn-call.js';
import { parseCodexArgs } from './arguments.js';
import { CODEX_TOOL } from './definitions.js';

/** Builds the `codex` tool. */
export function codexTool(app: McpApp): ToolEntry {
  return {
    definition: CODEX_TOOL,
    async handle(raw, request) {
      const parsed = parseCodexArgs(raw);
      if (!parsed.ok) return errorResult(parsed.message);
      let host;
      try {
        host = await app.host();
      } catch (error) {
        return errorResult(`Failed to load Codex configuration: ${(error as Error).message}`);
      }
      const started = await host.startThread(parsed.value);
      if (!started.ok) return errorResult(started.message);
      const { thread, config } = started;
      // Disabled servers are never started, so they are not part of the start-up report.
      const startup = new McpStartupTracker();
      const opening = startup.open(thread.mcpServerStatuses().flatMap((s) => (s.status === 'disabled' ? [] : [{ server: s.name, status: s.status, error: s.error }])));
      const call = new TurnCall({
        mcpStartup: startup,
        thread,
        submissionId: String(request.binding.requestId),
        settings: host.settings,
        approvals: app.approvals,
        log: app.log,
        onFinish: (finished) => app.onCallFinished(finished),
        preamble: projectSessionStart({
          threadId: thread.id,
          model: thread.settings.model,
          modelProviderId: config.modelProviderId,
          approvalPolicy: thread.settings.approvalPolicy,
          sandboxPolicy: thread.settings.sandboxPolicy,
          cwd: thread.settings.cwd,
          rolloutPath: thread.path,
          reasoningEffort: thread.settings.reasoningEffort,
        }, opening),
      });
      call.start(parsed.value.prompt, request.binding);
      return app.run(call, request);
    },
  };
}
