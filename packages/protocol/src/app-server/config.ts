/**
 * Params and results of `config/read`, `config/value/write`, `config/batchWrite` and
 * `configRequirements/read`. The config itself travels in snake_case with Codex's keys; only the
 * keys clients commonly read are typed here, every other key passes through unchanged. Writes
 * target the user `config.toml` only; write errors carry `data.config_write_error_code`.
 */
import { z } from 'zod';
import { ReasoningEffortSchema, ReasoningSummarySchema, SandboxModeSchema } from '../core/policies.js';
import { ApprovalsReviewerSchema, AskForApprovalSchema } from './policies.js';
import { AbsolutePathSchema, Int64Schema } from './primitives.js';

/** Where a config layer comes from. */
export const ConfigLayerSourceSchema = z.discriminatedUnion('type', [
  z.object({
    /** Managed preferences (macOS MDM). */
    type: z.literal('mdm'),
    /** Preference domain. */
    domain: z.string(),
    /** Preference key. */
    key: z.string(),
  }),
  z.object({ /** `/etc/codex/config.toml`. */ type: z.literal('system'), /** Its path. */ file: AbsolutePathSchema }),
  z.object({ /** `$CODEX_HOME/config.toml`. */ type: z.literal('user'), /** Its path. */ file: AbsolutePathSchema }),
  z.object({
    /** A project's `.codex/config.toml`. */
    type: z.literal('project'),
    /** The `.codex` folder. */
    dotCodexFolder: AbsolutePathSchema,
  }),
  z.object({ /** `-c` / `--enable` flags of this process. */ type: z.literal('sessionFlags') }),
  z.object({
    /** Legacy managed config file. */
    type: z.literal('legacyManagedConfigTomlFromFile'),
    /** Its path. */
    file: AbsolutePathSchema,
  }),
  z.object({ /** Legacy managed config from MDM. */ type: z.literal('legacyManagedConfigTomlFromMdm') }),
]);
export type ConfigLayerSource = z.infer<typeof ConfigLayerSourceSchema>;

/** A layer reference with its version. */
export const ConfigLayerMetadataSchema = z.object({
  /** The layer. */
  name: ConfigLayerSourceSchema,
  /**
   * `sha256:` + hex SHA-256 of the layer's value as compact JSON with recursively sorted keys
   * (not a hash of the file bytes).
   */
  version: z.string(),
});
export type ConfigLayerMetadata = z.infer<typeof ConfigLayerMetadataSchema>;

/** One config layer with its content. */
export const ConfigLayerSchema = z.object({
  /** The layer. */
  name: ConfigLayerSourceSchema,
  /** Its version (see `ConfigLayerMetadata.version`). */
  version: z.string(),
  /** The layer's parsed TOML as JSON. */
  config: z.unknown(),
  /** Why the layer is ignored, when it is (absent otherwise). */
  disabledReason: z.string().nullish(),
});
export type ConfigLayer = z.infer<typeof ConfigLayerSchema>;

/**
 * The resolved config in snake_case. Every known key is present (null when unset); the keys
 * typed here are the ones clients read most, the rest pass through as they are.
 */
export const ConfigSchema = z.looseObject({
  /** Default model. */
  model: z.string().nullish(),
  /** Model used for reviews. */
  review_model: z.string().nullish(),
  /** Active provider id. */
  model_provider: z.string().nullish(),
  /** Context window override. */
  model_context_window: Int64Schema.nullish(),
  /** Token count that triggers auto-compaction. */
  model_auto_compact_token_limit: Int64Schema.nullish(),
  /** Approval policy. */
  approval_policy: AskForApprovalSchema.nullish(),
  /** Approvals reviewer. */
  approvals_reviewer: ApprovalsReviewerSchema.nullish(),
  /** Sandbox mode. */
  sandbox_mode: SandboxModeSchema.nullish(),
  /** Reasoning effort. */
  model_reasoning_effort: ReasoningEffortSchema.nullish(),
  /** Reasoning summary. */
  model_reasoning_summary: ReasoningSummarySchema.nullish(),
  /** Output verbosity. */
  model_verbosity: z.enum(['low', 'medium', 'high']).nullish(),
  /** Active profile name. */
  profile: z.string().nullish(),
  /** Profiles by name. */
  profiles: z.record(z.string(), z.record(z.string(), z.unknown())).nullish(),
  /** Service tier. */
  service_tier: z.string().nullish(),
  /** Web search mode. */
  web_search: z.enum(['disabled', 'cached', 'live']).nullish(),
  /** Base instructions override. */
  instructions: z.string().nullish(),
  /** Developer instructions. */
  developer_instructions: z.string().nullish(),
});
export type Config = z.infer<typeof ConfigSchema>;

/** `config/read` params. The params object itself is required. */
export const ConfigReadParamsSchema = z.object({
  /** Resolve project layers for this directory. */
  cwd: z.string().nullish(),
  /** Include `layers` in the result (default false). */
  includeLayers: z.boolean().optional(),
});
export type ConfigReadParams = z.infer<typeof ConfigReadParamsSchema>;

/** `config/read` result. */
export const ConfigReadResultSchema = z.object({
  /** The resolved config. */
  config: ConfigSchema,
  /** Dotted key → the layer that set it. */
  origins: z.record(z.string(), ConfigLayerMetadataSchema),
  /** Layers, highest precedence first; present only with `includeLayers`. */
  layers: z.array(ConfigLayerSchema).nullish(),
});
export type ConfigReadResult = z.infer<typeof ConfigReadResultSchema>;

/** How a value is written. */
export const MergeStrategySchema = z.enum(['replace', 'upsert']);
export type MergeStrategy = z.infer<typeof MergeStrategySchema>;

/** One edit: `value: null` deletes the key. */
export const ConfigEditSchema = z.object({
  /** Dotted key path, e.g. `tui.animations`; `""` is refused. */
  keyPath: z.string(),
  /** The value (any JSON); null deletes. */
  value: z.unknown(),
  /** `replace` sets; `upsert` merges an object into an existing table. */
  mergeStrategy: MergeStrategySchema,
});
export type ConfigEdit = z.infer<typeof ConfigEditSchema>;

/** Where and under which version a write applies. */
const writeTarget = {
  /** Fail with `configVersionConflict` unless the user layer still has this version. */
  expectedVersion: z.string().nullish(),
  /** Target file; anything but the user `config.toml` gives `configLayerReadonly`. */
  filePath: z.string().nullish(),
};

/** `config/value/write` params. */
export const ConfigValueWriteParamsSchema = ConfigEditSchema.extend(writeTarget);
export type ConfigValueWriteParams = z.infer<typeof ConfigValueWriteParamsSchema>;

/** `config/batchWrite` params: all edits apply or none. */
export const ConfigBatchWriteParamsSchema = z.object({
  /** The edits, in order; `[]` succeeds without changes. */
  edits: z.array(ConfigEditSchema),
  ...writeTarget,
  /** Reload the user config into loaded threads afterwards. */
  reloadUserConfig: z.boolean().optional(),
});
export type ConfigBatchWriteParams = z.infer<typeof ConfigBatchWriteParamsSchema>;

/** Result of both config writes. */
export const ConfigWriteResultSchema = z.object({
  /** `okOverridden`: written, but a higher layer wins. */
  status: z.enum(['ok', 'okOverridden']),
  /** New version of the user layer. */
  version: z.string(),
  /** Absolute path of the written file. */
  filePath: AbsolutePathSchema,
  /** Which layer overrides the written value, null when none does. */
  overriddenMetadata: z
    .object({
      /** E.g. `Overridden by session flags`. */
      message: z.string(),
      /** The winning layer. */
      overridingLayer: ConfigLayerMetadataSchema,
      /** The value in force. */
      effectiveValue: z.unknown(),
    })
    .nullable(),
});
export type ConfigWriteResult = z.infer<typeof ConfigWriteResultSchema>;

/** Administrator-imposed limits on config values. */
export const ConfigRequirementsSchema = z.object({
  /** Allowed approval policies. */
  allowedApprovalPolicies: z.array(AskForApprovalSchema).nullish(),
  /** Allowed approvals reviewers. */
  allowedApprovalsReviewers: z.array(ApprovalsReviewerSchema).nullish(),
  /** Allowed sandbox modes. */
  allowedSandboxModes: z.array(SandboxModeSchema).nullish(),
  /** Allowed web search modes. */
  allowedWebSearchModes: z.array(z.enum(['disabled', 'cached', 'live'])).nullish(),
  /** Feature flags forced on or off. */
  featureRequirements: z.record(z.string(), z.boolean()).nullish(),
  /** Data residency requirement. */
  enforceResidency: z.enum(['us']).nullish(),
  /** Managed hooks (see the reference schema). */
  hooks: z.record(z.string(), z.unknown()).nullish(),
  /** Network requirements (see the reference schema). */
  network: z.record(z.string(), z.unknown()).nullish(),
});
export type ConfigRequirements = z.infer<typeof ConfigRequirementsSchema>;

/** `configRequirements/read` result (the method takes no params). */
export const ConfigRequirementsReadResultSchema = z.object({
  /** The requirements, null when none are configured. */
  requirements: ConfigRequirementsSchema.nullable(),
});
export type ConfigRequirementsReadResult = z.infer<typeof ConfigRequirementsReadResultSchema>;
