/**
 * User input and thread items: the nouns a conversation is made of. Shapes follow the Codex
 * app-server `ThreadItem` (camelCase) so the app-server projection is close to one-to-one; the
 * MCP projection maps them to Codex event names.
 */
import { z } from 'zod';
import { DynamicToolContentItemSchema } from './client-tools.js';

/** A byte range of a text input that a client rendered as a placeholder (Codex `text_elements`). */
export const TextElementSchema = z.object({
  byteRange: z.object({ start: z.number().int(), end: z.number().int() }),
  placeholder: z.string().nullable().optional(),
});

/** One piece of user input. */
export const UserInputSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string(), text_elements: z.array(TextElementSchema).optional() }),
  z.object({ type: z.literal('image'), url: z.string() }),
  z.object({ type: z.literal('localImage'), path: z.string() }),
  /** A skill the user named explicitly: its SKILL.md is attached to the turn (the model never sees this part itself). */
  z.object({ type: z.literal('skill'), name: z.string(), path: z.string() }),
]);
export type UserInput = z.infer<typeof UserInputSchema>;

/** Status of a tool item. `declined` = the user said no. */
export const ToolItemStatusSchema = z.enum(['inProgress', 'completed', 'failed', 'declined']);
export type ToolItemStatus = z.infer<typeof ToolItemStatusSchema>;

/** The kind of change a patch makes to one file. */
export const FileChangeKindSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('add') }),
  z.object({ type: z.literal('delete') }),
  z.object({ type: z.literal('update'), move_path: z.string().nullable() }),
]);
export type FileChangeKind = z.infer<typeof FileChangeKindSchema>;

/** One file touched by a patch: absolute path, kind and a unified diff. */
export const FileUpdateSchema = z.object({ path: z.string(), kind: FileChangeKindSchema, diff: z.string() });
export type FileUpdate = z.infer<typeof FileUpdateSchema>;

/** One step of the agent's plan (update_plan tool). */
export const PlanStepSchema = z.object({ step: z.string(), status: z.enum(['pending', 'in_progress', 'completed']) });
export type PlanStep = z.infer<typeof PlanStepSchema>;

/** Every item a thread records. `id` is stable for the item's lifetime. */
export const ThreadItemSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('userMessage'),
    id: z.string(),
    content: z.array(UserInputSchema),
    /** The client's own id of the message (`clientUserMessageId`), kept with it; absent when none was given. */
    clientId: z.string().nullish(),
  }),
  z.object({
    type: z.literal('agentMessage'),
    id: z.string(),
    text: z.string(),
    phase: z.enum(['commentary', 'final_answer']).nullable(),
  }),
  z.object({ type: z.literal('reasoning'), id: z.string(), summary: z.array(z.string()), content: z.array(z.string()) }),
  z.object({
    type: z.literal('commandExecution'),
    id: z.string(),
    /** The full shell line as shown to a user, e.g. `/bin/bash -lc 'echo hi'`. */
    command: z.string(),
    /** argv actually executed (before sandbox wrapping). */
    argv: z.array(z.string()),
    cwd: z.string(),
    processId: z.string().nullable(),
    status: ToolItemStatusSchema,
    aggregatedOutput: z.string().nullable(),
    exitCode: z.number().int().nullable(),
    durationMs: z.number().int().nullable(),
    /** Who ran it: the agent's tool call, or the user (`Thread.runUserShellCommand`). Absent: the agent. */
    source: z.enum(['agent', 'userShell']).optional(),
  }),
  z.object({
    type: z.literal('fileChange'),
    id: z.string(),
    changes: z.array(FileUpdateSchema),
    status: ToolItemStatusSchema,
  }),
  z.object({
    type: z.literal('mcpToolCall'),
    id: z.string(),
    server: z.string(),
    tool: z.string(),
    status: ToolItemStatusSchema,
    arguments: z.unknown(),
    result: z.unknown().optional(),
    error: z.string().nullable().optional(),
    durationMs: z.number().int().nullable().optional(),
  }),
  /** A call of a client-provided tool: the client ran it (`contentItems`, `success`), or it failed. */
  z.object({
    type: z.literal('dynamicToolCall'),
    id: z.string(),
    tool: z.string(),
    namespace: z.string().nullable(),
    arguments: z.unknown(),
    status: ToolItemStatusSchema,
    contentItems: z.array(DynamicToolContentItemSchema).nullable(),
    success: z.boolean().nullable(),
    durationMs: z.number().int().nullable(),
  }),
  z.object({ type: z.literal('imageView'), id: z.string(), path: z.string() }),
  z.object({ type: z.literal('contextCompaction'), id: z.string() }),
  /** A review turn began (`Thread.startReview`); `review` says what is reviewed. */
  z.object({ type: z.literal('enteredReviewMode'), id: z.string(), review: z.string() }),
  /** A review turn ended; `review` is the rendered review (or why there is none). */
  z.object({ type: z.literal('exitedReviewMode'), id: z.string(), review: z.string() }),
  /** Text hooks gave the model as a prompt (a blocking `Stop` hook's reason), one fragment per hook run. */
  z.object({ type: z.literal('hookPrompt'), id: z.string(), fragments: z.array(z.object({ hookRunId: z.string(), text: z.string() })) }),
]);
export type ThreadItem = z.infer<typeof ThreadItemSchema>;
export type ThreadItemType = ThreadItem['type'];
