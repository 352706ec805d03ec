/**
 * Params and results of the import history (Codex 0.171, docs/app-server.md "Methods for current
 * clients"): `externalAgentConfig/import/recordHistory` stores what a client imported from
 * another agent's configuration, `externalAgentConfig/import/readHistories` lists the records.
 * Neither is experimental.
 */
import { z } from 'zod';
import { Int64Schema, UInt32Schema } from './primitives.js';

/** What kind of configuration an import item is. */
export const ExternalAgentConfigMigrationItemTypeSchema = z.enum([
  'AGENTS_MD', 'CONFIG', 'SKILLS', 'PLUGINS', 'MCP_SERVER_CONFIG', 'SUBAGENTS', 'HOOKS', 'COMMANDS', 'MEMORY', 'SESSIONS',
]);

/** One item imported. */
export const ExternalAgentConfigImportSuccessSchema = z.object({
  itemType: ExternalAgentConfigMigrationItemTypeSchema,
  cwd: z.string().nullish(),
  source: z.string().nullish(),
  target: z.string().nullish(),
  /** Original title of an imported session. */
  title: z.string().nullish(),
});

/** One item that failed to import. */
export const ExternalAgentConfigImportFailureSchema = z.object({
  itemType: ExternalAgentConfigMigrationItemTypeSchema,
  failureStage: z.string(),
  message: z.string(),
  cwd: z.string().nullish(),
  source: z.string().nullish(),
  errorType: z.string().nullish(),
  subErrorType: z.string().nullish(),
});

/** `externalAgentConfig/import/recordHistory` params. */
export const ExternalAgentConfigImportHistoryRecordParamsSchema = z.object({
  /** Opaque id of the provider that did the import. */
  providerId: z.string(),
  /** Results grouped by item type. */
  itemTypeResults: z.array(
    z.object({
      itemType: ExternalAgentConfigMigrationItemTypeSchema,
      successes: z.array(ExternalAgentConfigImportSuccessSchema),
      failures: z.array(ExternalAgentConfigImportFailureSchema),
    }),
  ),
});
export type ExternalAgentConfigImportHistoryRecordParams = z.infer<typeof ExternalAgentConfigImportHistoryRecordParamsSchema>;

/** `externalAgentConfig/import/recordHistory` result. */
export const ExternalAgentConfigImportHistoryRecordResultSchema = z.object({ importId: z.string() });

/** One recorded import, as `readHistories` lists it (every field present, null when unknown). */
export const ExternalAgentConfigImportHistorySchema = z.object({
  importId: z.string(),
  providerId: z.string().nullable(),
  completedAtMs: Int64Schema,
  successes: z.array(ExternalAgentConfigImportSuccessSchema),
  failures: z.array(ExternalAgentConfigImportFailureSchema),
});

export type ExternalAgentConfigImportHistory = z.infer<typeof ExternalAgentConfigImportHistorySchema>;

/** `externalAgentConfig/import/readHistories` result. */
export const ExternalAgentConfigImportHistoriesReadResultSchema = z.object({
  data: z.array(ExternalAgentConfigImportHistorySchema),
  /** Connectors found in imported sessions; always empty (Deputy imports nothing itself). */
  connectors: z.array(z.object({ name: z.string(), sessionCount: UInt32Schema, source: z.enum(['remoteMcpServersConfig']) })),
});
