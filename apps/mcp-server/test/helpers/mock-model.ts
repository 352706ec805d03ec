/**
 * The reference captures' mock model, as a handler for the scripted model server: user text
 * `run: CMD` → an exec_command call, `patch: NAME=TEXT` → an apply_patch adding NAME, `slow: MS`
 * → an answer streamed over about MS milliseconds, `stall:` → a stream that stops mid-answer,
 * anything else → `ECHO: <text>`; after a tool output it answers `TOOL_RESULT: <output>`.
 */
import { conversationTail, customToolCall, functionCall, text, type ScriptedModelServer, type Step } from '@deputy/test-support';

/** Frames a short text answer takes on the Responses wire (approximately). */
const FRAMES_PER_ANSWER = 14;

/** The step for one model request. */
export function referenceStep(tail: ReturnType<typeof conversationTail>): Step {
  if (tail.kind === 'tool-output') return { output: [text(`TOOL_RESULT: ${tail.output.output}`)] };
  const prompt = tail.kind === 'user' ? tail.text : '';
  if (prompt.startsWith('run: ')) return { output: [functionCall('exec_command', { cmd: prompt.slice(5), yield_time_ms: 10_000 })] };
  if (prompt.startsWith('patch: ')) {
    const [name, body] = prompt.slice(7).split('=', 2) as [string, string];
    return { output: [customToolCall('apply_patch', `*** Begin Patch\n*** Add File: ${name}\n+${body ?? ''}\n*** End Patch\n`)] };
  }
  if (prompt.startsWith('slow: ')) return { output: [text(`slow answer after ${prompt.slice(6)} ms`)], delayMs: Math.ceil(Number(prompt.slice(6)) / FRAMES_PER_ANSWER) };
  if (prompt.startsWith('stall:')) return { fault: 'stall', after: 7, output: [text('this answer never finishes because the stream stalls')], delayMs: 20 };
  return { output: [text(`ECHO: ${prompt}`)] };
}

/** Makes the server answer like the reference captures' mock. */
export function useReferenceMock(model: ScriptedModelServer): void {
  model.setHandler((request) => referenceStep(conversationTail(request)));
}
