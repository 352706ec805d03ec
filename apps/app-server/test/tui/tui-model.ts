/**
 * The scripted model behind the TUI session. Stateless, like a real model reading its own
 * conversation: a greeting gets a fixed answer; `run: CMD` asks for `exec_command` with
 * `sandbox_permissions: "require_escalated"` (so an on-request policy must ask the user);
 * `patch: NAME=TEXT` adds the file NAME holding TEXT through `apply_patch` (the custom tool when
 * the server offers it, else the `apply_patch` heredoc through `exec_command`, as the reference
 * model does when it has no patch tool); a tool output is answered with its last line.
 */
import { conversationTail, customToolCall, functionCall, text, type RecordedRequest, type Step, type StepHandler } from '@deputy/test-support';

/** The answer to any message that is not a command. */
export const GREETING_ANSWER = 'Hello from the scripted model, nice to meet you.';

/** Prefix of the answer after a tool ran (followed by the output's last line). */
export const TOOL_ANSWER_PREFIX = 'Tool finished:';

/** The patch text that adds `name` with `content` as its only line. */
export function addFilePatch(name: string, content: string): string {
  return `*** Begin Patch\n*** Add File: ${name}\n+${content}\n*** End Patch\n`;
}

type ToolSpec = { type?: unknown; name?: unknown; function?: { name?: unknown } };

/** The offered tool named `name`, if any. */
function offeredTool(request: RecordedRequest, name: string): ToolSpec | undefined {
  const tools = Array.isArray(request.body.tools) ? (request.body.tools as ToolSpec[]) : [];
  return tools.find((t) => t.name === name || t.function?.name === name);
}

function patchStep(request: RecordedRequest, spec: string): Step {
  const at = spec.indexOf('=');
  const patch = addFilePatch(spec.slice(0, at).trim(), spec.slice(at + 1));
  const tool = offeredTool(request, 'apply_patch');
  if (tool?.type === 'custom') return { output: [customToolCall('apply_patch', patch)] };
  if (tool !== undefined) return { output: [functionCall('apply_patch', { input: patch })] };
  return { output: [functionCall('exec_command', { cmd: `apply_patch <<'EOF'\n${patch}EOF\n` })] };
}

/** The handler for `startScriptedModelServer`. */
export function tuiModelScript(): StepHandler {
  return (request) => {
    const tail = conversationTail(request);
    if (tail.kind === 'user') {
      const said = tail.text.trim();
      if (said.startsWith('run: ')) {
        const args = { cmd: said.slice('run: '.length), sandbox_permissions: 'require_escalated', justification: 'The test wants to see this command approved.' };
        return { output: [functionCall('exec_command', args)] };
      }
      if (said.startsWith('patch: ')) return patchStep(request, said.slice('patch: '.length));
      return { output: [text(GREETING_ANSWER)] };
    }
    if (tail.kind === 'tool-output') {
      const lines = tail.output.output.trim().split('\n');
      return { output: [text(`${TOOL_ANSWER_PREFIX} ${lines[lines.length - 1] ?? ''}`)] };
    }
    return { output: [text('I have nothing to add.')] };
  };
}
