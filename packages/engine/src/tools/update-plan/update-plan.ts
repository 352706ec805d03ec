/**
 * `update_plan`: the model records its plan as steps with a status. The plan is an event for the
 * front doors (Codex emits no item for it); the model gets a short acknowledgement.
 */
import { z } from 'zod';
import { defineFunctionTool } from '../define-tool.js';

const DESCRIPTION = `Records or updates your plan for the current task.
Give the whole plan each time: a short list of steps, each with a status of "pending", "in_progress" or "completed".
At most one step should be in_progress. Add an explanation when the plan changes.`;

/** Arguments of update_plan (names as the reference sends them). */
export const UpdatePlanArgsSchema = z
  .object({
    explanation: z.string().optional(),
    plan: z
      .array(
        z
          .object({
            step: z.string(),
            status: z.enum(['pending', 'in_progress', 'completed']).describe('One of: pending, in_progress, completed'),
          })
          .strict(),
      )
      .describe('The list of steps'),
  })
  .strict();

/** The update_plan tool. */
export const updatePlanTool = defineFunctionTool({
  name: 'update_plan',
  description: DESCRIPTION,
  parameters: UpdatePlanArgsSchema,
  async handle(args, ctx) {
    ctx.emit({ type: 'plan.updated', explanation: args.explanation ?? null, plan: args.plan });
    return { output: 'Plan updated', success: true };
  },
});
