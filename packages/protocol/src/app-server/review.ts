/**
 * Params and result of `review/start`, the Codex TUI's `/review`: a code review of the working
 * tree, of the changes against a base branch, of one commit, or by free-form instructions. The
 * answer carries the review turn (in progress) and the thread it runs on; the turn follows as
 * notifications: `enteredReviewMode`, the reviewer's tool items, `exitedReviewMode` with the
 * review text, an `agentMessage` with the same text, `turn/completed`.
 */
import { z } from 'zod';
import { TurnSchema } from './shared.js';

/** What to review. */
export const ReviewTargetSchema = z.discriminatedUnion('type', [
  z.object({
    /** Review the working tree: staged, unstaged, and untracked files. */
    type: z.literal('uncommittedChanges'),
  }),
  z.object({
    /** Review changes between the current branch and the given base branch. */
    type: z.literal('baseBranch'),
    /** The base branch. */
    branch: z.string(),
  }),
  z.object({
    /** Review the changes introduced by a specific commit. */
    type: z.literal('commit'),
    /** The commit. */
    sha: z.string(),
    /** Optional human-readable label (e.g., commit subject) for UIs. */
    title: z.string().nullish(),
  }),
  z.object({
    /** Arbitrary instructions, equivalent to the old free-form prompt. */
    type: z.literal('custom'),
    /** The reviewer's instructions. */
    instructions: z.string(),
  }),
]);
export type ReviewTarget = z.infer<typeof ReviewTargetSchema>;

/** Where a review runs. */
export const ReviewDeliverySchema = z.enum(['inline', 'detached']);
export type ReviewDelivery = z.infer<typeof ReviewDeliverySchema>;

/** `review/start` params. */
export const ReviewStartParamsSchema = z.object({
  /** The thread to review from (must be loaded). */
  threadId: z.string(),
  /** What to review. */
  target: ReviewTargetSchema,
  /**
   * Where to run the review: inline (default) on the current thread or detached on a new thread
   * (returned in `reviewThreadId`).
   */
  delivery: ReviewDeliverySchema.nullish(),
});
export type ReviewStartParams = z.infer<typeof ReviewStartParamsSchema>;

/** `review/start` result. */
export const ReviewStartResultSchema = z.object({
  /** The review turn, in progress. */
  turn: TurnSchema,
  /**
   * Identifies the thread where the review runs. For inline reviews, this is the original thread
   * id. For detached reviews, this is the id of the new review thread.
   */
  reviewThreadId: z.string(),
});
export type ReviewStartResult = z.infer<typeof ReviewStartResultSchema>;
