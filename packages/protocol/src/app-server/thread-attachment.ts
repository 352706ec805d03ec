/**
 * Params, results and notifications of thread attachments (Codex 0.171, docs/app-server.md
 * "Thread attachments"): `thread/attachment/add|list|remove`, `thread/attachmentOwner/list` and
 * `thread/attachment/updated`. An attachment is an opaque JSON payload a client keeps on a
 * thread, identified there by (`attachmentType`, `identityKey`); none of these is experimental.
 */
import { z } from 'zod';
import { Int64Schema, UInt32Schema } from './primitives.js';

/** Any JSON value, required (absent is refused). */
const PayloadSchema = z.custom<unknown>((value) => value !== undefined, { message: 'payload is required' });

/** One attachment of a thread. `createdAt` is Unix seconds. */
export const ThreadAttachmentSchema = z.object({
  /** Server-assigned UUIDv7. */
  id: z.string(),
  attachmentType: z.string(),
  identityKey: z.string(),
  payload: PayloadSchema,
  createdAt: Int64Schema,
});
export type ThreadAttachment = z.infer<typeof ThreadAttachmentSchema>;

/** `thread/attachment/add` params. */
export const ThreadAttachmentAddParamsSchema = z.object({
  threadId: z.string(),
  attachmentType: z.string(),
  identityKey: z.string(),
  payload: PayloadSchema,
});

/** `thread/attachment/add` result: `existing` when the thread already had that identity (its payload is kept). */
export const ThreadAttachmentAddResultSchema = z.object({
  attachment: ThreadAttachmentSchema,
  outcome: z.enum(['created', 'existing']),
});

/** `thread/attachment/list` params. */
export const ThreadAttachmentListParamsSchema = z.object({
  threadId: z.string(),
  cursor: z.string().nullish(),
  limit: UInt32Schema.nullish(),
});

/** `thread/attachment/list` result. */
export const ThreadAttachmentListResultSchema = z.object({ data: z.array(ThreadAttachmentSchema), nextCursor: z.string().nullable() });

/** `thread/attachment/remove` params. */
export const ThreadAttachmentRemoveParamsSchema = z.object({ threadId: z.string(), attachmentType: z.string(), identityKey: z.string() });

/** `thread/attachmentOwner/list` params. */
export const ThreadAttachmentOwnerListParamsSchema = z.object({
  attachmentType: z.string(),
  identityKey: z.string(),
  /** Absent or null: every owner; false: unarchived threads only; true: archived threads only. */
  archived: z.boolean().nullish(),
  cursor: z.string().nullish(),
  limit: UInt32Schema.nullish(),
});

/** `thread/attachmentOwner/list` result. */
export const ThreadAttachmentOwnerListResultSchema = z.object({
  data: z.array(z.object({ threadId: z.string(), archived: z.boolean() })),
  nextCursor: z.string().nullable(),
});

/** `thread/attachment/updated` notification. */
export const ThreadAttachmentUpdatedNotificationSchema = z.object({
  threadId: z.string(),
  attachmentId: z.string(),
  attachmentType: z.string(),
  identityKey: z.string(),
  operation: z.enum(['created', 'deleted']),
});
