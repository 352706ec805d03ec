/**
 * Params, results and notifications of projects (Codex 0.171, docs/app-server.md "Projects"):
 * `project/list|read|create|import|update|move|delete` (all experimental), `project/changed`,
 * `thread/project/updated`, and `thread/metadata/update` (0.130), which now also moves a thread
 * between projects. A project is a named group of workspace roots that owns threads; a thread
 * belongs to at most one (`Thread.projectId`).
 */
import { z } from 'zod';
import { AbsolutePathSchema, Int64Schema, UInt32Schema } from './primitives.js';
import { PageSortDirectionSchema } from './turns-list.js';

/** One workspace root of a project. */
export const ProjectRootSchema = z.object({ path: AbsolutePathSchema });

/** A project. Times are Unix seconds. */
export const ProjectSchema = z.object({
  /** Server-assigned UUIDv7. */
  id: z.string(),
  name: z.string(),
  roots: z.array(ProjectRootSchema),
  /** The client's string map (`{}` when none was given). */
  metadata: z.record(z.string(), z.string()),
  createdAt: Int64Schema,
  updatedAt: Int64Schema,
  /** Newest `recencyAt` of the project's unarchived threads; null when it has none. */
  recencyAt: Int64Schema.nullish(),
});
export type Project = z.infer<typeof ProjectSchema>;

/** Orders of `project/list`: the user's (`position`, default) or the newest thread first (`recencyAt`). */
export const ProjectSortKeySchema = z.enum(['position', 'recencyAt']);

/** `project/list` params. */
export const ProjectListParamsSchema = z.object({
  cursor: z.string().nullish(),
  /** Page size (default 100). */
  limit: UInt32Schema.nullish(),
  sortKey: ProjectSortKeySchema.nullish(),
  /** Default `asc` for `position`, `desc` for `recencyAt`; projects without threads always come last by recency. */
  sortDirection: PageSortDirectionSchema.nullish(),
});
export type ProjectListParams = z.infer<typeof ProjectListParamsSchema>;

/** `project/list` result. */
export const ProjectListResultSchema = z.object({ data: z.array(ProjectSchema), nextCursor: z.string().nullable() });

/** Params naming one project (`read`, `delete`). */
export const ProjectIdParamsSchema = z.object({ projectId: z.string() });

/** Result carrying one project (`read`, `create`, `import`, `update`). */
export const ProjectResultSchema = z.object({ project: ProjectSchema });

/** `project/create` params. */
export const ProjectCreateParamsSchema = z.object({
  /** The client's key: a repeated create with the same key returns the first project. */
  idempotencyKey: z.string(),
  name: z.string(),
  roots: z.array(ProjectRootSchema),
  metadata: z.record(z.string(), z.string()).nullish(),
});
export type ProjectCreateParams = z.infer<typeof ProjectCreateParamsSchema>;

/** `project/import` params: a create that also moves `threads` into the new project. */
export const ProjectImportParamsSchema = ProjectCreateParamsSchema.extend({
  /** Ids of existing threads to put into the project. */
  threads: z.array(z.string()).nullish(),
});
export type ProjectImportParams = z.infer<typeof ProjectImportParamsSchema>;

/** `project/update` params: absent or null fields stay as they are. */
export const ProjectUpdateParamsSchema = z.object({
  projectId: z.string(),
  name: z.string().nullish(),
  roots: z.array(ProjectRootSchema).nullish(),
  /** Replaces the whole map. */
  metadata: z.record(z.string(), z.string()).nullish(),
});
export type ProjectUpdateParams = z.infer<typeof ProjectUpdateParamsSchema>;

/** `project/move` params. */
export const ProjectMoveParamsSchema = z.object({
  projectId: z.string(),
  /** Place the project before this one; absent or null puts it last. */
  beforeProjectId: z.string().nullish(),
});

/** What happened to a project. */
export const ProjectChangeTypeSchema = z.enum(['created', 'updated', 'deleted']);

/** `project/changed` notification. */
export const ProjectChangedNotificationSchema = z.object({ projectId: z.string(), changeType: ProjectChangeTypeSchema });

/** `thread/project/updated` notification: the thread's project now (null: none). */
export const ThreadProjectUpdatedNotificationSchema = z.object({ threadId: z.string(), projectId: z.string().nullable() });

/** A patch of a thread's stored git facts: absent keeps a field, null clears it. */
export const ThreadMetadataGitInfoUpdateSchema = z.object({
  sha: z.string().nullish(),
  branch: z.string().nullish(),
  originUrl: z.string().nullish(),
});

/** `thread/metadata/update` params. */
export const ThreadMetadataUpdateParamsSchema = z.object({
  threadId: z.string(),
  /** Git facts to patch; Deputy records none, so a non-empty patch is refused. */
  gitInfo: ThreadMetadataGitInfoUpdateSchema.nullish(),
  /** Absent or null keeps the project, `""` takes the thread out of it, an id moves it there (0.171). */
  projectId: z.string().nullish(),
  /** Accepted and ignored (0.171; Deputy has no Daybreak). */
  daybreakEnabled: z.boolean().nullish(),
});
export type ThreadMetadataUpdateParams = z.infer<typeof ThreadMetadataUpdateParamsSchema>;
