/**
 * The deterministic model the app-server tests talk to, after the mock of the Responses API the
 * reference's captures (`packages/protocol/test/fixtures/app-server/captures/`) were recorded
 * against: `run: CMD` calls the shell tool, `patch: NAME=TEXT` adds a file with apply_patch,
 * `plan: a;b` updates the plan, `slow: MS` answers with MS between stream events, `reason: TEXT`
 * reasons before answering, `fail: STATUS` answers with that HTTP error; anything else is echoed as
 * `ECHO: <text>`. After a tool call it answers `TOOL_RESULT: <output>`.
 */
import {
  conversationTail,
  customToolCall,
  functionCall,
  reasoning,
  text,
  type Step,
  type StepHandler,
} from '@deputy/test-support';

/** The apply_patch input that adds `name` with one line of `content`. */
export function addFilePatch(name: string, content: string): string {
  return `*** Begin Patch\n*** Add File: ${name}\n+${content}\n*** End Patch\n`;
}

function stepFor(userText: string): Step {
  const [verb, ...rest] = userText.split(':');
  const arg = rest.join(':').trim();
  switch (verb?.trim()) {
    case 'run':
      return { output: [functionCall('exec_command', { cmd: arg, yield_time_ms: 5000 })] };
    case 'patch': {
      const [name = 'file.txt', ...content] = arg.split('=');
      return { output: [customToolCall('apply_patch', addFilePatch(name, content.join('=')))] };
    }
    case 'plan':
      return {
        output: [
          functionCall('update_plan', {
            explanation: 'scripted plan',
            plan: arg.split(';').map((step, i) => ({ step: step.trim(), status: i === 0 ? 'in_progress' : 'pending' })),
          }),
        ],
      };
    case 'slow':
      return { output: [text(`ECHO: ${userText} and a few more words to stream slowly`)], delayMs: Number(arg) || 200 };
    case 'reason':
      return { output: [reasoning(`thinking about ${arg}`), text(`ECHO: ${arg}`)] };
    case 'fail':
      return { fault: 'http', status: Number(arg) || 500 };
    default:
      return { output: [text(`ECHO: ${userText}`)] };
  }
}

/** The handler to pass to `startScriptedModelServer`. */
export const referenceScript: StepHandler = (request) => {
  const tail = conversationTail(request);
  if (tail.kind === 'tool-output') return { output: [text(`TOOL_RESULT: ${tail.output.output}`)] };
  if (tail.kind === 'user') return stepFor(tail.text);
  return { output: [text('ECHO: (nothing)')] };
};
