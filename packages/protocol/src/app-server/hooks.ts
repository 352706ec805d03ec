/**
 * The app-server wire of hook runs and of skill toggles: `hook/started` and `hook/completed`
 * (one `HookRunSummary` per run, with the thread and turn), and `skills/config/write` (enable or
 * disable a skill by path or name). Shapes follow the reference schema (0.130 and 0.171).
 */
import { z } from 'zod';
import { Int64Schema } from './primitives.js';

/** One line of a hook run's report. */
export const HookOutputEntrySchema = z.object({
  /** What the line is: a warning, a stop reason, feedback (a block reason), context for the model, an error. */
  kind: z.enum(['warning', 'stop', 'feedback', 'context', 'error']),
  /** Its text. */
  text: z.string(),
});

/** The run of one hook. */
export const HookRunSummarySchema = z.object({
  /** The run's id (the hook's key and a unique suffix). */
  id: z.string(),
  /** The event it ran for. */
  eventName: z.enum(['preToolUse', 'permissionRequest', 'postToolUse', 'preCompact', 'postCompact', 'sessionStart', 'userPromptSubmit', 'stop']),
  /** Handler kind (Deputy runs `command` hooks only). */
  handlerType: z.enum(['command', 'prompt', 'agent']),
  /** `sync`: the event waits for it. */
  executionMode: z.enum(['sync', 'async']),
  /** `thread` for SessionStart, `turn` for the rest. */
  scope: z.enum(['thread', 'turn']),
  /** Where the hook was configured. */
  source: z.enum(['system', 'user', 'project', 'mdm', 'sessionFlags', 'plugin', 'cloudRequirements', 'legacyManagedConfigFile', 'legacyManagedConfigMdm', 'unknown']),
  /** The file that configured it. */
  sourcePath: z.string(),
  /** Its position in the display order. */
  displayOrder: Int64Schema,
  /** `running` in `hook/started`; how it ended in `hook/completed`. */
  status: z.enum(['running', 'completed', 'failed', 'blocked', 'stopped']),
  /** Its configured status text. */
  statusMessage: z.string().nullable(),
  /** Start, in Unix seconds. */
  startedAt: Int64Schema,
  /** End, in Unix seconds (null while running). */
  completedAt: Int64Schema.nullable(),
  /** How long it ran (null while running). */
  durationMs: Int64Schema.nullable(),
  /** What it reported. */
  entries: z.array(HookOutputEntrySchema),
});
export type HookRunSummary = z.infer<typeof HookRunSummarySchema>;

/** `hook/started` and `hook/completed`. */
export const HookRunNotificationSchema = z.object({
  /** The thread. */
  threadId: z.string(),
  /** The turn it ran in. */
  turnId: z.string().nullable(),
  /** The run. */
  run: HookRunSummarySchema,
});
export type HookRunNotification = z.infer<typeof HookRunNotificationSchema>;

/** `skills/config/write` params: one selector (path or name) and the choice. */
export const SkillsConfigWriteParamsSchema = z.object({
  /** Enable (true) or disable (false). */
  enabled: z.boolean(),
  /** The skill's SKILL.md path. */
  path: z.string().nullish(),
  /** The skill's name (every skill of that name). */
  name: z.string().nullish(),
});
export type SkillsConfigWriteParams = z.infer<typeof SkillsConfigWriteParamsSchema>;

/** `skills/config/write` result. */
export const SkillsConfigWriteResultSchema = z.object({
  /** Whether the skill is enabled now. */
  effectiveEnabled: z.boolean(),
});
export type SkillsConfigWriteResult = z.infer<typeof SkillsConfigWriteResultSchema>;
