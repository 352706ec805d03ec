/**
 * Params and results of `turn/start`, `turn/steer` and `turn/interrupt`, plus the collaboration
 * mode a turn may carry. The result of `turn/start` is always sent before any notification of
 * that turn. Turn-level overrides become the thread's defaults for later turns.
 */
import { z } from 'zod';
import { ReasoningSummarySchema } from '../core/policies.js';
import { TurnUserInputSchema } from './items.js';
import {
  ApprovalsReviewerSchema,
  AskForApprovalSchema,
  InputReasoningEffortSchema,
  PermissionProfileSelectionSchema,
  PersonalitySchema,
  SandboxPolicySchema,
} from './policies.js';
import { TurnSchema } from './shared.js';
import { TurnEnvironmentSchema } from './thread.js';

/** A collaboration mode preset. */
export const ModeKindSchema = z.enum(['plan', 'default']);
export type ModeKind = z.infer<typeof ModeKindSchema>;

/** A collaboration mode and its settings (experimental on `turn/start`). Keys are snake_case. */
export const CollaborationModeSchema = z.object({
  /** The preset. */
  mode: ModeKindSchema,
  /** Its settings. */
  settings: z.object({
    /** Model to use. */
    model: z.string(),
    /** Reasoning effort, null for the model default. */
    reasoning_effort: InputReasoningEffortSchema.nullish(),
    /** Instructions for the mode; null means the built-in ones. */
    developer_instructions: z.string().nullish(),
  }),
});
export type CollaborationMode = z.infer<typeof CollaborationModeSchema>;

/** Extra metadata forwarded to the Responses API (string values). */
const ResponsesApiClientMetadataSchema = z.record(z.string(), z.string());

/** `turn/start` params. */
export const TurnStartParamsSchema = z.object({
  /** The thread; it must be loaded (`thread not found: <id>` otherwise). */
  threadId: z.string(),
  /** The user's input. A compatible server rejects `[]`. */
  input: z.array(TurnUserInputSchema),
  /** Working directory override. */
  cwd: z.string().nullish(),
  /** Model override. */
  model: z.string().nullish(),
  /** Service tier override. */
  serviceTier: z.string().nullish(),
  /** Approval policy override. */
  approvalPolicy: AskForApprovalSchema.nullish(),
  /** Approvals reviewer override. */
  approvalsReviewer: ApprovalsReviewerSchema.nullish(),
  /** Sandbox override, object form only (a string is rejected). */
  sandboxPolicy: SandboxPolicySchema.nullish(),
  /** Reasoning effort override. */
  effort: InputReasoningEffortSchema.nullish(),
  /** Reasoning summary override. */
  summary: ReasoningSummarySchema.nullish(),
  /** Personality override. */
  personality: PersonalitySchema.nullish(),
  /** JSON Schema the final answer must follow, for this turn only. */
  outputSchema: z.unknown().optional(),
  /** Named permission profile (experimental). */
  permissions: PermissionProfileSelectionSchema.nullish(),
  /** Remote environments (experimental). */
  environments: z.array(TurnEnvironmentSchema).nullish(),
  /** Metadata for the Responses API request (experimental). */
  responsesapiClientMetadata: ResponsesApiClientMetadataSchema.nullish(),
  /** Collaboration mode (experimental). */
  collaborationMode: CollaborationModeSchema.nullish(),
  /** The client's id of the message; the userMessage item carries it back as `clientId` (0.171). */
  clientUserMessageId: z.string().nullish(),
  /** The turn that caused this one (0.171); accepted and not recorded. */
  parentTurnId: z.string().nullish(),
  /** The first turn of the chain of work this turn continues (0.171); absent: the new turn is its own root. */
  rootTurnId: z.string().nullish(),
});
export type TurnStartParams = z.infer<typeof TurnStartParamsSchema>;

/**
 * `turn/start` result: the new turn with `status: "inProgress"`, `items: []`,
 * `itemsView: "notLoaded"` and null times.
 */
export const TurnStartResultSchema = z.object({
  /** The new turn. */
  turn: TurnSchema,
});
export type TurnStartResult = z.infer<typeof TurnStartResultSchema>;

/**
 * `turn/steer` params: more input for the running turn. It joins after the current model round
 * as a new userMessage item of the same turn.
 */
export const TurnSteerParamsSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** Id of the turn the client believes is running; a mismatch is an error. */
  expectedTurnId: z.string(),
  /** The extra input. */
  input: z.array(TurnUserInputSchema),
  /** Metadata for the Responses API request. */
  responsesapiClientMetadata: ResponsesApiClientMetadataSchema.nullish(),
  /** The client's id of the message; the userMessage item carries it back as `clientId` (0.171). */
  clientUserMessageId: z.string().nullish(),
});
export type TurnSteerParams = z.infer<typeof TurnSteerParamsSchema>;

/** `turn/steer` result, sent at once. */
export const TurnSteerResultSchema = z.object({
  /** The turn the input joined. */
  turnId: z.string(),
});
export type TurnSteerResult = z.infer<typeof TurnSteerResultSchema>;

/** `turn/interrupt` params; the result is `{}`. */
export const TurnInterruptParamsSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** The running turn (`expected active turn id …` otherwise). */
  turnId: z.string(),
});
export type TurnInterruptParams = z.infer<typeof TurnInterruptParamsSchema>;
