/**
 * Params and results of `model/list` (the built-in model catalogue; the provider is not queried)
 * and `modelProvider/capabilities/read`. `model/list` is fatal for the TUI when it errors, but an
 * empty catalogue (`data: []`) works.
 */
import { z } from 'zod';
import { ReasoningEffortSchema } from '../core/policies.js';
import { UInt32Schema } from './primitives.js';

/** `model/list` params. The params object itself is required. */
export const ModelListParamsSchema = z.object({
  /** Decimal offset string from a previous page, e.g. `"2"`. */
  cursor: z.string().nullish(),
  /** Page size. */
  limit: UInt32Schema.nullish(),
  /** Include hidden models. */
  includeHidden: z.boolean().nullish(),
});
export type ModelListParams = z.infer<typeof ModelListParamsSchema>;

/** A reasoning effort a model supports, with its description. */
export const ReasoningEffortOptionSchema = z.object({
  /** The effort. */
  reasoningEffort: ReasoningEffortSchema,
  /** What it means for this model. */
  description: z.string(),
});
export type ReasoningEffortOption = z.infer<typeof ReasoningEffortOptionSchema>;

/** A model of the catalogue. */
export const ModelSchema = z.object({
  /** Catalogue id. */
  id: z.string(),
  /** Model slug sent upstream. */
  model: z.string(),
  /** Suggested replacement model, if any. */
  upgrade: z.string().nullable(),
  /** Details of the suggested upgrade, if any. */
  upgradeInfo: z
    .object({
      /** Target model. */
      model: z.string(),
      /** Short text shown with the upgrade. */
      upgradeCopy: z.string().nullish(),
      /** Link for more information. */
      modelLink: z.string().nullish(),
      /** Migration notes in Markdown. */
      migrationMarkdown: z.string().nullish(),
    })
    .nullable(),
  /** Announcement shown once, if any. */
  availabilityNux: z.object({ /** The text. */ message: z.string() }).nullable(),
  /** Display name. */
  displayName: z.string(),
  /** One-line description. */
  description: z.string(),
  /** Hidden from pickers unless `includeHidden`. */
  hidden: z.boolean(),
  /** Efforts the model accepts. */
  supportedReasoningEfforts: z.array(ReasoningEffortOptionSchema),
  /** Effort used when none is given. */
  defaultReasoningEffort: ReasoningEffortSchema,
  /** Accepted input kinds. */
  inputModalities: z.array(z.enum(['text', 'image'])),
  /** Whether personality presets apply. */
  supportsPersonality: z.boolean(),
  /** Extra speed tiers, e.g. `fast`. */
  additionalSpeedTiers: z.array(z.string()),
  /** Service tiers. */
  serviceTiers: z.array(
    z.object({ /** Tier id. */ id: z.string(), /** Name. */ name: z.string(), /** Description. */ description: z.string() }),
  ),
  /** The default model of the catalogue. */
  isDefault: z.boolean(),
});
export type Model = z.infer<typeof ModelSchema>;

/** `model/list` result. */
export const ModelListResultSchema = z.object({
  /** The page. */
  data: z.array(ModelSchema),
  /** Cursor of the next page, null at the end. */
  nextCursor: z.string().nullable(),
});
export type ModelListResult = z.infer<typeof ModelListResultSchema>;

/** `modelProvider/capabilities/read` params: an empty object. */
export const ModelProviderCapabilitiesReadParamsSchema = z.object({});
export type ModelProviderCapabilitiesReadParams = z.infer<typeof ModelProviderCapabilitiesReadParamsSchema>;

/** `modelProvider/capabilities/read` result: what the active provider supports. */
export const ModelProviderCapabilitiesReadResultSchema = z.object({
  /** Namespaced tools. */
  namespaceTools: z.boolean(),
  /** Image generation. */
  imageGeneration: z.boolean(),
  /** Web search. */
  webSearch: z.boolean(),
});
export type ModelProviderCapabilitiesReadResult = z.infer<typeof ModelProviderCapabilitiesReadResultSchema>;
