/**
 * `request_user_input`: in plan collaboration mode the model may put one to three short
 * multiple-choice questions to the user and wait for the answers. The front door asks
 * (`ToolContext.requestUserInput`: the app-server's `item/tool/requestUserInput`, the MCP server's
 * elicitation, nothing under `deputy exec`); the model reads the answers as the reference sends
 * them, `{"answers":{"<id>":{"answers":["…"]}}}`. Outside plan mode it is not offered, and a call
 * is refused with the reference's message.
 */
import { z } from 'zod';
import { defineFunctionTool } from '../define-tool.js';
import { ToolError } from '../types.js';

/** The tool's name, as the reference names it. */
export const REQUEST_USER_INPUT_TOOL_NAME = 'request_user_input';

const DESCRIPTION =
  'Request user input for one to three short questions and wait for the response. Before calling this tool, send a user-facing update that summarizes the available choices and why you need them. This tool is only available in Plan mode.';

/** What the model reads when no user answers (the reference's wording). */
export const NO_USER_ANSWER_TEXT = 'request_user_input was cancelled before receiving a response';

/** What the model reads when the front door has nobody to ask (`deputy exec`). */
export const NO_USER_AVAILABLE_TEXT = 'request_user_input: no user available to answer; decide yourself and say what you assumed';

const OptionSchema = z
  .object({
    label: z.string().describe('User-facing label (1-5 words).'),
    description: z.string().describe('One short sentence explaining impact/tradeoff if selected.'),
  })
  .strict();

/** Arguments of request_user_input (the reference's shape). */
export const RequestUserInputArgsSchema = z
  .object({
    questions: z
      .array(
        z
          .object({
            id: z.string().describe('Stable identifier for mapping answers (snake_case).'),
            header: z.string().describe('Short header label shown in the UI (12 or fewer chars).'),
            question: z.string().describe('Single-sentence prompt shown to the user.'),
            options: z
              .array(OptionSchema)
              .describe(
                'Provide 2-3 mutually exclusive choices. Put the recommended option first and suffix its label with "(Recommended)". Do not include an "Other" option in this list; the client will add a free-form "Other" option automatically.',
              ),
          })
          .strict(),
      )
      .describe('Questions to show the user. Prefer 1 and do not exceed 3'),
  })
  .strict();

/** The request_user_input tool (offered in plan mode only). */
export const requestUserInputTool = {
  ...defineFunctionTool({
    name: REQUEST_USER_INPUT_TOOL_NAME,
    description: DESCRIPTION,
    parameters: RequestUserInputArgsSchema,
    async handle(args, ctx) {
      const mode = ctx.collaborationMode ?? 'default';
      if (mode !== 'plan') throw new ToolError(`request_user_input is unavailable in ${mode === 'default' ? 'Default' : mode} mode`);
      if (args.questions.some((q) => q.options.length === 0)) throw new ToolError('request_user_input requires non-empty options for every question');
      const questions = args.questions.map((q) => ({ ...q, isOther: true, isSecret: false }));
      const answer = ctx.requestUserInput ? await ctx.requestUserInput({ callId: ctx.callId, questions }) : 'noUser';
      if (answer === 'noUser') throw new ToolError(NO_USER_AVAILABLE_TEXT);
      if (answer === 'cancelled') throw new ToolError(NO_USER_ANSWER_TEXT);
      return { output: JSON.stringify(answer), success: true };
    },
  }),
  modes: ['plan'] as const,
};
