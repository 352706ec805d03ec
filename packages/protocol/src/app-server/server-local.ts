/**
 * Params and results of the 0.171 process-local methods (docs/app-server.md "Methods for current
 * clients"): `server/diagnostics` and `rollout/compress` (both experimental),
 * `skills/extraRoots/set` and `feedback/save`.
 */
import { z } from 'zod';
import { AbsolutePathSchema, UInt32Schema, UIntSchema } from './primitives.js';

/** `server/diagnostics` params (none defined). */
export const ServerDiagnosticsParamsSchema = z.object({});

/** `server/diagnostics` result: named counters of the server and facts of its process. */
export const ServerDiagnosticsResultSchema = z.object({
  gauges: z.array(z.object({ name: z.string(), value: UIntSchema })),
  process: z.object({
    id: UInt32Schema,
    residentMemoryBytes: UIntSchema.nullish(),
    /** A macOS figure; always null here. */
    physicalFootprintBytes: UIntSchema.nullish(),
  }),
});

/** `skills/extraRoots/set` params: the full list (an empty one clears it). */
export const SkillsExtraRootsSetParamsSchema = z.object({ extraRoots: z.array(AbsolutePathSchema) });

/** `feedback/save` params. */
export const FeedbackSaveParamsSchema = z.object({
  classification: z.string(),
  /** Absolute path of a ZIP file that must not exist yet. */
  savePath: z.string(),
  threadId: z.string().nullish(),
  includeLogs: z.boolean().optional(),
  reason: z.string().nullish(),
  tags: z.record(z.string(), z.string()).nullish(),
  extraLogFiles: z.array(z.string()).nullish(),
});
export type FeedbackSaveParams = z.infer<typeof FeedbackSaveParamsSchema>;

/** `feedback/save` result. */
export const FeedbackSaveResultSchema = z.object({
  savedPath: z.string(),
  threadId: z.string(),
  /** Always null: Deputy records no prompt metadata. */
  promptHash: z.string().nullable(),
});
