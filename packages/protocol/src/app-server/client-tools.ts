/**
 * Server→client requests that let the agent use its clients: `item/tool/call` (run a tool the
 * client offered on `thread/start.dynamicTools`) and `item/tool/requestUserInput` (put the model's
 * questions to the user), with the results clients send back. Like approvals, each goes to every
 * subscriber of the thread, the first answer wins and `serverRequest/resolved` follows.
 */
import { z } from 'zod';
import { DynamicToolCallOutputContentItemSchema } from './items.js';
import { UIntSchema } from './primitives.js';

/** `item/tool/call` params: the model called a client tool. */
export const DynamicToolCallParamsSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** The turn. */
  turnId: z.string(),
  /** The model's call id (also the `dynamicToolCall` item's id). */
  callId: z.string(),
  /** The tool's name. */
  tool: z.string(),
  /** Its namespace, null for a top-level tool. */
  namespace: z.string().nullable(),
  /** The model's arguments (any JSON). */
  arguments: z.unknown(),
});
export type DynamicToolCallParams = z.infer<typeof DynamicToolCallParamsSchema>;

/** The client's result of `item/tool/call`: what goes back to the model. */
export const DynamicToolCallResultSchema = z.object({
  /** Text and images for the model. */
  contentItems: z.array(DynamicToolCallOutputContentItemSchema),
  /** False when the tool failed (the model is told). */
  success: z.boolean(),
});
export type DynamicToolCallResult = z.infer<typeof DynamicToolCallResultSchema>;

/** One option of a question. */
export const ToolRequestUserInputOptionSchema = z.object({
  /** Short label (also the answer when chosen). */
  label: z.string(),
  /** What choosing it means. */
  description: z.string(),
});

/** One question of `item/tool/requestUserInput`. */
export const ToolRequestUserInputQuestionSchema = z.object({
  /** Answer key. */
  id: z.string(),
  /** Short header. */
  header: z.string(),
  /** The question. */
  question: z.string(),
  /** Offer a free-form answer next to the options. */
  isOther: z.boolean().optional(),
  /** Mask the answer. */
  isSecret: z.boolean().optional(),
  /** The choices, null for a free-form question. */
  options: z.array(ToolRequestUserInputOptionSchema).nullish(),
});

/** `item/tool/requestUserInput` params (experimental): the model asks the user. */
export const ToolRequestUserInputParamsSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** The turn. */
  turnId: z.string(),
  /** The model's call id. */
  itemId: z.string(),
  /** The questions. */
  questions: z.array(ToolRequestUserInputQuestionSchema),
  /** The turn waits for the answer (always true here; 0.130 clients ignore it). */
  isBlocking: z.boolean(),
  /** Deprecated: auto-resolution delay; not sent. */
  autoResolutionMs: UIntSchema.nullish(),
});
export type ToolRequestUserInputParams = z.infer<typeof ToolRequestUserInputParamsSchema>;

/** The client's answers, by question id. */
export const ToolRequestUserInputResultSchema = z.object({
  /** Question id → the answers (chosen labels or free text). */
  answers: z.record(z.string(), z.object({ /** The answers. */ answers: z.array(z.string()) })),
});
export type ToolRequestUserInputResult = z.infer<typeof ToolRequestUserInputResultSchema>;
