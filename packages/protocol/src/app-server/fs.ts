/**
 * Params and results of the `fs/*` methods and the `fs/changed` payload. Every path must be
 * absolute (a relative one is rejected with the reference's `AbsolutePathBuf` message); OS
 * errors are the handler's to report. File contents travel base64-encoded.
 */
import { z } from 'zod';
import { AbsolutePathSchema, Int64Schema } from './primitives.js';

/** Params naming one absolute path (`fs/readFile`, `fs/getMetadata`, `fs/readDirectory`). */
export const FsPathParamsSchema = z.object({
  /** The path. */
  path: AbsolutePathSchema,
});
export type FsPathParams = z.infer<typeof FsPathParamsSchema>;

/** `fs/readFile` result. */
export const FsReadFileResultSchema = z.object({
  /** File content, base64. */
  dataBase64: z.string(),
});
export type FsReadFileResult = z.infer<typeof FsReadFileResultSchema>;

/** `fs/writeFile` params; the result is `{}`. */
export const FsWriteFileParamsSchema = z.object({
  /** The file. */
  path: AbsolutePathSchema,
  /** New content, base64. */
  dataBase64: z.string(),
});
export type FsWriteFileParams = z.infer<typeof FsWriteFileParamsSchema>;

/** `fs/createDirectory` params; the result is `{}`. */
export const FsCreateDirectoryParamsSchema = z.object({
  /** The directory. */
  path: AbsolutePathSchema,
  /** Create parents too (default true). */
  recursive: z.boolean().nullish(),
});
export type FsCreateDirectoryParams = z.infer<typeof FsCreateDirectoryParamsSchema>;

/** `fs/getMetadata` result. A value that is not available is 0. */
export const FsGetMetadataResultSchema = z.object({
  /** Is a directory. */
  isDirectory: z.boolean(),
  /** Is a regular file. */
  isFile: z.boolean(),
  /** Is a symbolic link. */
  isSymlink: z.boolean(),
  /** Creation time, Unix ms. */
  createdAtMs: Int64Schema,
  /** Modification time, Unix ms. */
  modifiedAtMs: Int64Schema,
});
export type FsGetMetadataResult = z.infer<typeof FsGetMetadataResultSchema>;

/** `fs/readDirectory` result (names only). */
export const FsReadDirectoryResultSchema = z.object({
  /** The entries. */
  entries: z.array(
    z.object({
      /** Entry name. */
      fileName: z.string(),
      /** Is a directory. */
      isDirectory: z.boolean(),
      /** Is a regular file. */
      isFile: z.boolean(),
    }),
  ),
});
export type FsReadDirectoryResult = z.infer<typeof FsReadDirectoryResultSchema>;

/** `fs/remove` params; the result is `{}`. */
export const FsRemoveParamsSchema = z.object({
  /** The path. */
  path: AbsolutePathSchema,
  /** Remove directories with their content (default true). */
  recursive: z.boolean().nullish(),
  /** Ignore a missing path (default true). */
  force: z.boolean().nullish(),
});
export type FsRemoveParams = z.infer<typeof FsRemoveParamsSchema>;

/** `fs/copy` params; the result is `{}`. A directory needs `recursive: true`. */
export const FsCopyParamsSchema = z.object({
  /** Source path. */
  sourcePath: AbsolutePathSchema,
  /** Destination path. */
  destinationPath: AbsolutePathSchema,
  /** Copy directories recursively. */
  recursive: z.boolean().optional(),
});
export type FsCopyParams = z.infer<typeof FsCopyParamsSchema>;

/** `fs/watch` params. */
export const FsWatchParamsSchema = z.object({
  /** Client-chosen watch id. */
  watchId: z.string(),
  /** What to watch. */
  path: AbsolutePathSchema,
});
export type FsWatchParams = z.infer<typeof FsWatchParamsSchema>;

/** `fs/watch` result. */
export const FsWatchResultSchema = z.object({
  /** The canonicalized path being watched. */
  path: AbsolutePathSchema,
});
export type FsWatchResult = z.infer<typeof FsWatchResultSchema>;

/** `fs/unwatch` params; the result is `{}` (idempotent). */
export const FsUnwatchParamsSchema = z.object({
  /** The watch. */
  watchId: z.string(),
});
export type FsUnwatchParams = z.infer<typeof FsUnwatchParamsSchema>;

/** `fs/changed` params, sent to the connection that owns the watch. */
export const FsChangedSchema = z.object({
  /** The watch. */
  watchId: z.string(),
  /** Absolute paths that changed. */
  changedPaths: z.array(AbsolutePathSchema),
});
export type FsChanged = z.infer<typeof FsChangedSchema>;
