/**
 * Params, results and notifications of the fuzzy file search: the one-shot `fuzzyFileSearch`
 * and the experimental session variant (`fuzzyFileSearch/sessionStart`, `sessionUpdate`,
 * `sessionStop`, with `fuzzyFileSearch/sessionUpdated` and `sessionCompleted` sent to the
 * session's connection). A result row is the one snake_case object of this camelCase area
 * (`file_name`, `match_type`), as the reference spells it. Pure zod; the walk and the scoring
 * belong to the app.
 */
import { z } from 'zod';
import { UInt32Schema } from './primitives.js';

/** Whether a result names a file or a directory. */
export const FuzzyFileSearchMatchTypeSchema = z.enum(['file', 'directory']);
export type FuzzyFileSearchMatchType = z.infer<typeof FuzzyFileSearchMatchTypeSchema>;

/** One match (reference: "superset of `codex_file_search::FileMatch`"). */
export const FuzzyFileSearchResultSchema = z.object({
  /** The search root the match was found under, as the client wrote it. */
  root: z.string(),
  /** The match's path relative to `root`, `/`-separated. */
  path: z.string(),
  /** File or directory (a symlink counts as what it points to). */
  match_type: FuzzyFileSearchMatchTypeSchema,
  /** The last component of `path`. */
  file_name: z.string(),
  /** Relevance; higher is better. Results are ordered by score, then by path. */
  score: UInt32Schema,
  /** Ascending, distinct character (code point) indices into `path` that matched the query. */
  indices: z.array(UInt32Schema).nullish(),
});
export type FuzzyFileSearchResult = z.infer<typeof FuzzyFileSearchResultSchema>;

/** `fuzzyFileSearch` params. */
export const FuzzyFileSearchParamsSchema = z.object({
  /** The query; `""` answers no files. */
  query: z.string(),
  /** Directories to search; relative ones are taken from the server's working directory. */
  roots: z.array(z.string()),
  /**
   * A newer request with the same token cancels the older one, which then answers with no
   * files. Tokens are scoped to the connection.
   */
  cancellationToken: z.string().nullish(),
});
export type FuzzyFileSearchParams = z.infer<typeof FuzzyFileSearchParamsSchema>;

/** `fuzzyFileSearch` result. */
export const FuzzyFileSearchResponseSchema = z.object({
  /** The best matches, best first (at most 50). */
  files: z.array(FuzzyFileSearchResultSchema),
});
export type FuzzyFileSearchResponse = z.infer<typeof FuzzyFileSearchResponseSchema>;

/** `fuzzyFileSearch/sessionStart` params; the result is `{}`. */
export const FuzzyFileSearchSessionStartParamsSchema = z.object({
  /** Client-chosen id, not empty; starting an id again replaces that session. */
  sessionId: z.string(),
  /** Directories to search (at least one). */
  roots: z.array(z.string()),
});
export type FuzzyFileSearchSessionStartParams = z.infer<typeof FuzzyFileSearchSessionStartParamsSchema>;

/** `fuzzyFileSearch/sessionUpdate` params; the result is `{}`, the matches follow as notifications. */
export const FuzzyFileSearchSessionUpdateParamsSchema = z.object({
  /** The session. */
  sessionId: z.string(),
  /** The new query; `""` gives an update without files. */
  query: z.string(),
});
export type FuzzyFileSearchSessionUpdateParams = z.infer<typeof FuzzyFileSearchSessionUpdateParamsSchema>;

/** `fuzzyFileSearch/sessionStop` params; the result is `{}` (also for an unknown id). */
export const FuzzyFileSearchSessionStopParamsSchema = z.object({
  /** The session. */
  sessionId: z.string(),
});
export type FuzzyFileSearchSessionStopParams = z.infer<typeof FuzzyFileSearchSessionStopParamsSchema>;

/** `fuzzyFileSearch/sessionUpdated` params: the best matches so far for the session's query. */
export const FuzzyFileSearchSessionUpdatedNotificationSchema = z.object({
  /** The session. */
  sessionId: z.string(),
  /** The query these matches are for (clients drop updates of a query they moved past). */
  query: z.string(),
  /** The best matches so far, best first (at most 50). */
  files: z.array(FuzzyFileSearchResultSchema),
});
export type FuzzyFileSearchSessionUpdatedNotification = z.infer<typeof FuzzyFileSearchSessionUpdatedNotificationSchema>;

/** `fuzzyFileSearch/sessionCompleted` params: the walk is done and the last update is final. */
export const FuzzyFileSearchSessionCompletedNotificationSchema = z.object({
  /** The session. */
  sessionId: z.string(),
});
export type FuzzyFileSearchSessionCompletedNotification = z.infer<typeof FuzzyFileSearchSessionCompletedNotificationSchema>;
