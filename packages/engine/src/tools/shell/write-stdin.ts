/**
 * `write_stdin`: writes characters to a running exec session (or polls it with empty `chars`)
 * and returns the output since the last read, in the same layout as exec_command.
 */
import { z } from 'zod';
import { UnknownSessionError } from '../../exec/errors.js';
import { formatExecOutput } from '../../exec/format.js';
import { defineFunctionTool } from '../define-tool.js';
import { ToolError } from '../types.js';
import type { ShellServices } from './services.js';

/** write_stdin arguments (names as the reference sends them). */
export const WriteStdinArgsSchema = z
  .object({
    session_id: z.number().describe('Identifier of the running unified exec session.'),
    chars: z.string().optional().describe('Bytes to write to stdin (may be empty to poll).'),
    yield_time_ms: z.number().optional().describe('How long to wait (in milliseconds) for output before yielding.'),
    max_output_tokens: z.number().optional().describe('Maximum number of tokens to return. Excess output will be truncated.'),
  })
  .strict();

/** Builds the write_stdin tool for a thread. */
export function writeStdinTool(services: ShellServices) {
  return defineFunctionTool({
    name: 'write_stdin',
    description: 'Writes characters to a running exec_command session and returns its recent output. Send empty chars to poll.',
    parameters: WriteStdinArgsSchema,
    async handle(args, ctx) {
      try {
        const snapshot = await services.sessions.write(args.session_id, args.chars ?? '', args.yield_time_ms ?? 250, args.max_output_tokens, ctx.signal);
        return { output: formatExecOutput(snapshot), success: snapshot.sessionId !== null || snapshot.exitCode === 0 };
      } catch (error) {
        if (error instanceof UnknownSessionError) throw new ToolError(error.message);
        throw error;
      }
    },
  });
}
