/**
 * Params and results of the list methods a client calls at start-up besides `model/list`:
 * `skills/list`, `hooks/list` (the TUI calls both; errors are survivable), `app/list`,
 * `collaborationMode/list` (experimental) and `experimentalFeature/list`. Lists without cwds use
 * the server cwd.
 */
import { z } from 'zod';
import { ReasoningEffortSchema } from '../core/policies.js';
import { AbsolutePathSchema, Int64Schema, UInt32Schema, UIntSchema } from './primitives.js';
import { ModeKindSchema } from './turn.js';

/** A file that failed to load, with the reason. */
export const LoadErrorSchema = z.object({
  /** The file. */
  path: z.string(),
  /** What went wrong. */
  message: z.string(),
});
export type LoadError = z.infer<typeof LoadErrorSchema>;

/** `skills/list` params. */
export const SkillsListParamsSchema = z.object({
  /** Directories to list skills for (default: the server cwd). */
  cwds: z.array(z.string()).optional(),
  /** Re-read skills from disk instead of the cache. */
  forceReload: z.boolean().optional(),
});
export type SkillsListParams = z.infer<typeof SkillsListParamsSchema>;

/** How a skill presents itself; every field is always sent, null when unset. */
export const SkillInterfaceSchema = z.object({
  /** Display name. */
  displayName: z.string().nullable(),
  /** Short description. */
  shortDescription: z.string().nullable(),
  /** Small icon path. */
  iconSmall: AbsolutePathSchema.nullable(),
  /** Large icon path. */
  iconLarge: AbsolutePathSchema.nullable(),
  /** Brand colour. */
  brandColor: z.string().nullable(),
  /** Prompt inserted when the skill is picked. */
  defaultPrompt: z.string().nullable(),
});

/** One skill. */
export const SkillMetadataSchema = z.object({
  /** Skill name. */
  name: z.string(),
  /** What it is for (shown to the model). */
  description: z.string(),
  /** Short description (absent when the skill has none). */
  shortDescription: z.string().nullish(),
  /** Presentation, null when the skill declares none. */
  interface: SkillInterfaceSchema.nullable(),
  /** Tools the skill needs (absent when none). */
  dependencies: z
    .object({
      /** Tool dependencies. */
      tools: z.array(
        z.object({
          /** Dependency kind. */
          type: z.string(),
          /** Dependency value. */
          value: z.string(),
          /** Description. */
          description: z.string().nullish(),
          /** Transport, for MCP dependencies. */
          transport: z.string().nullish(),
          /** Command, for stdio dependencies. */
          command: z.string().nullish(),
          /** URL, for HTTP dependencies. */
          url: z.string().nullish(),
        }),
      ),
    })
    .nullish(),
  /** Absolute path of its SKILL.md. */
  path: AbsolutePathSchema,
  /** Where it was found. */
  scope: z.enum(['user', 'repo', 'system', 'admin']),
  /** Whether it is enabled. */
  enabled: z.boolean(),
});
export type SkillMetadata = z.infer<typeof SkillMetadataSchema>;

/** `skills/list` result: one entry per cwd. */
export const SkillsListResultSchema = z.object({
  /** Entries per cwd. */
  data: z.array(
    z.object({
      /** The directory. */
      cwd: z.string(),
      /** Skills visible there. */
      skills: z.array(SkillMetadataSchema),
      /** Skills that failed to load. */
      errors: z.array(LoadErrorSchema),
    }),
  ),
});
export type SkillsListResult = z.infer<typeof SkillsListResultSchema>;

/** `hooks/list` params. */
export const HooksListParamsSchema = z.object({
  /** Directories to list hooks for (default: the server cwd). */
  cwds: z.array(z.string()).optional(),
});
export type HooksListParams = z.infer<typeof HooksListParamsSchema>;

/** One configured hook. */
export const HookMetadataSchema = z.object({
  /** Stable key. */
  key: z.string(),
  /** Event it runs on. */
  eventName: z.enum([
    'preToolUse',
    'permissionRequest',
    'postToolUse',
    'preCompact',
    'postCompact',
    'sessionStart',
    'userPromptSubmit',
    'stop',
  ]),
  /** Handler kind. */
  handlerType: z.enum(['command', 'prompt', 'agent']),
  /** Tool matcher, if any. */
  matcher: z.string().nullable(),
  /** Command, for command hooks. */
  command: z.string().nullable(),
  /** Status text shown while it runs. */
  statusMessage: z.string().nullable(),
  /** Timeout in seconds. */
  timeoutSec: UIntSchema,
  /** Whether it is enabled. */
  enabled: z.boolean(),
  /** Managed by an administrator. */
  isManaged: z.boolean(),
  /** Where it was configured. */
  source: z.enum([
    'system',
    'user',
    'project',
    'mdm',
    'sessionFlags',
    'plugin',
    'cloudRequirements',
    'legacyManagedConfigFile',
    'legacyManagedConfigMdm',
    'unknown',
  ]),
  /** The file that configured it. */
  sourcePath: AbsolutePathSchema,
  /** Plugin that provides it, if any. */
  pluginId: z.string().nullable(),
  /** Position in the display order. */
  displayOrder: Int64Schema,
  /** Hash of the current definition. */
  currentHash: z.string(),
  /** Trust state. */
  trustStatus: z.enum(['managed', 'untrusted', 'trusted', 'modified']),
});
export type HookMetadata = z.infer<typeof HookMetadataSchema>;

/** `hooks/list` result: one entry per cwd. */
export const HooksListResultSchema = z.object({
  /** Entries per cwd. */
  data: z.array(
    z.object({
      /** The directory. */
      cwd: z.string(),
      /** Hooks in force there. */
      hooks: z.array(HookMetadataSchema),
      /** Non-fatal problems. */
      warnings: z.array(z.string()),
      /** Hook files that failed to load. */
      errors: z.array(LoadErrorSchema),
    }),
  ),
});
export type HooksListResult = z.infer<typeof HooksListResultSchema>;

/** `app/list` params. */
export const AppsListParamsSchema = z.object({
  /** Cursor from a previous page. */
  cursor: z.string().nullish(),
  /** Page size. */
  limit: UInt32Schema.nullish(),
  /** Only apps usable in this thread. */
  threadId: z.string().nullish(),
  /** Bypass the cache. */
  forceRefetch: z.boolean().optional(),
});
export type AppsListParams = z.infer<typeof AppsListParamsSchema>;

/** A ChatGPT app (connector). Empty without ChatGPT auth. */
export const AppInfoSchema = z.object({
  /** App id. */
  id: z.string(),
  /** Name. */
  name: z.string(),
  /** Description. */
  description: z.string().nullable(),
  /** Logo URL. */
  logoUrl: z.string().nullable(),
  /** Dark-mode logo URL. */
  logoUrlDark: z.string().nullable(),
  /** Distribution channel. */
  distributionChannel: z.string().nullable(),
  /** Branding details (see the reference schema). */
  branding: z.record(z.string(), z.unknown()).nullable(),
  /** Store metadata (see the reference schema). */
  appMetadata: z.record(z.string(), z.unknown()).nullable(),
  /** Labels. */
  labels: z.record(z.string(), z.string()).nullable(),
  /** Where to install it. */
  installUrl: z.string().nullable(),
  /** Whether the user can use it. */
  isAccessible: z.boolean(),
  /** Whether it is enabled. */
  isEnabled: z.boolean(),
  /** Plugins that bundle it. */
  pluginDisplayNames: z.array(z.string()),
});
export type AppInfo = z.infer<typeof AppInfoSchema>;

/** `app/list` result. */
export const AppsListResultSchema = z.object({
  /** The page. */
  data: z.array(AppInfoSchema),
  /** Cursor of the next page, null at the end. */
  nextCursor: z.string().nullable(),
});
export type AppsListResult = z.infer<typeof AppsListResultSchema>;

/** `collaborationMode/list` params: an empty object (the method is experimental). */
export const CollaborationModeListParamsSchema = z.object({});
export type CollaborationModeListParams = z.infer<typeof CollaborationModeListParamsSchema>;

/** A collaboration mode preset. Note the snake_case `reasoning_effort`. */
export const CollaborationModeMaskSchema = z.object({
  /** Display name, e.g. `Plan`. */
  name: z.string(),
  /** The mode. */
  mode: ModeKindSchema.nullable(),
  /** Model override, null for the thread's model. */
  model: z.string().nullable(),
  /** Effort override, null for the default. */
  reasoning_effort: ReasoningEffortSchema.nullable(),
});
export type CollaborationModeMask = z.infer<typeof CollaborationModeMaskSchema>;

/** `collaborationMode/list` result. */
export const CollaborationModeListResultSchema = z.object({
  /** The presets. */
  data: z.array(CollaborationModeMaskSchema),
});
export type CollaborationModeListResult = z.infer<typeof CollaborationModeListResultSchema>;

/** `experimentalFeature/list` params. */
export const ExperimentalFeatureListParamsSchema = z.object({
  /** Offset string from a previous page. */
  cursor: z.string().nullish(),
  /** Page size. */
  limit: UInt32Schema.nullish(),
});
export type ExperimentalFeatureListParams = z.infer<typeof ExperimentalFeatureListParamsSchema>;

/** A feature flag. Non-beta features have null display fields. */
export const ExperimentalFeatureSchema = z.object({
  /** Flag name, e.g. `unified_exec`. */
  name: z.string(),
  /** Maturity. */
  stage: z.enum(['beta', 'underDevelopment', 'stable', 'deprecated', 'removed']),
  /** Display name. */
  displayName: z.string().nullable(),
  /** Description. */
  description: z.string().nullable(),
  /** Announcement text. */
  announcement: z.string().nullable(),
  /** Whether it is on. */
  enabled: z.boolean(),
  /** Whether it is on by default. */
  defaultEnabled: z.boolean(),
});
export type ExperimentalFeature = z.infer<typeof ExperimentalFeatureSchema>;

/** `experimentalFeature/list` result. */
export const ExperimentalFeatureListResultSchema = z.object({
  /** The page. */
  data: z.array(ExperimentalFeatureSchema),
  /** Cursor of the next page, null at the end. */
  nextCursor: z.string().nullable(),
});
export type ExperimentalFeatureListResult = z.infer<typeof ExperimentalFeatureListResultSchema>;
