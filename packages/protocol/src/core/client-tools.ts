/**
 * Client-provided ("dynamic") tools and questions to the user: the shapes the engine and the
 * front doors share. A front door normalises its wire form (the app-server's `dynamicTools`, in
 * either generation) into `DynamicTool`; the engine offers them to the model, asks the front door
 * to run a call (`DynamicToolCallRequest` → `DynamicToolCallResponse`) and to put questions to
 * the user (`UserInputRequest` → `UserInputResponse`). No wire names here.
 */
import { z } from 'zod';

/** One client tool, normalised: a function, optionally inside a namespace. */
export const DynamicToolSchema = z.object({
  /** The function's name as the model sees it. */
  name: z.string().min(1),
  /** Description shown to the model. */
  description: z.string(),
  /** JSON Schema of the arguments (an object schema). */
  inputSchema: z.record(z.string(), z.unknown()),
  /** The namespace that groups it, null for a top-level function. */
  namespace: z.string().min(1).nullable(),
  /** The namespace's description (null: the default "Tools in the <ns> namespace."). */
  namespaceDescription: z.string().nullable(),
  /** The client asked for the tool to be loaded only on demand. */
  deferLoading: z.boolean(),
});
export type DynamicTool = z.infer<typeof DynamicToolSchema>;

/** One piece of a client tool's result. */
export const DynamicToolContentItemSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('inputText'), text: z.string() }),
  z.object({ type: z.literal('inputImage'), imageUrl: z.string() }),
]);
export type DynamicToolContentItem = z.infer<typeof DynamicToolContentItemSchema>;

/** A model call of a client tool, as the front door forwards it. */
export const DynamicToolCallRequestSchema = z.object({
  callId: z.string(),
  tool: z.string(),
  namespace: z.string().nullable(),
  /** The parsed arguments (any JSON). */
  arguments: z.unknown(),
});
export type DynamicToolCallRequest = z.infer<typeof DynamicToolCallRequestSchema>;

/** The client's result of a tool call. */
export const DynamicToolCallResponseSchema = z.object({
  contentItems: z.array(DynamicToolContentItemSchema),
  success: z.boolean(),
});
export type DynamicToolCallResponse = z.infer<typeof DynamicToolCallResponseSchema>;

/** One option of a question. */
export const UserInputOptionSchema = z.object({ label: z.string(), description: z.string() });

/** One question the model asks the user (`request_user_input`). */
export const UserInputQuestionSchema = z.object({
  id: z.string(),
  header: z.string(),
  question: z.string(),
  /** Offer a free-form "other" answer next to the options. */
  isOther: z.boolean(),
  /** The answer is a secret (masked by the client). */
  isSecret: z.boolean(),
  options: z.array(UserInputOptionSchema).nullable(),
});
export type UserInputQuestion = z.infer<typeof UserInputQuestionSchema>;

/** The model's questions, as the front door forwards them. */
export const UserInputRequestSchema = z.object({
  callId: z.string(),
  questions: z.array(UserInputQuestionSchema),
});
export type UserInputRequest = z.infer<typeof UserInputRequestSchema>;

/** The user's answers, by question id (each a list of strings: selected labels or free text). */
export const UserInputResponseSchema = z.object({
  answers: z.record(z.string(), z.object({ answers: z.array(z.string()) })),
});
export type UserInputResponse = z.infer<typeof UserInputResponseSchema>;
