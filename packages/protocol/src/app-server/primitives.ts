/**
 * Scalar building blocks of the app-server wire: absolute paths, the integer widths the
 * reference schema uses, request ids inside payloads, and the "no params" marker. Pure zod, no
 * I/O; every other app-server schema file builds on these and nothing here knows a method name.
 */
import { z } from 'zod';

/**
 * True for a POSIX absolute path (`/…`) or a Windows drive or UNC path. Mirrors the reference's
 * `AbsolutePathBuf`, which refuses relative paths at deserialization time.
 */
export function isAbsolutePath(value: string): boolean {
  return value.startsWith('/') || /^[A-Za-z]:[\\/]/.test(value) || value.startsWith('\\\\');
}

/**
 * An absolute filesystem path (reference `AbsolutePathBuf`). A relative path is rejected with the
 * reference's own wording, which the server prefixes with `Invalid request: `.
 */
export const AbsolutePathSchema = z.string().refine(isAbsolutePath, {
  message: 'AbsolutePathBuf deserialized without a base path',
});
export type AbsolutePath = z.infer<typeof AbsolutePathSchema>;

/** A signed 64-bit integer field (`format: int64`); JavaScript keeps it to the safe range. */
export const Int64Schema = z.number().int();

/** A signed 32-bit integer field (`format: int32`), e.g. exit codes. */
export const Int32Schema = z.number().int().min(-2147483648).max(2147483647);

/** An unsigned 32-bit integer field (`format: uint32`), e.g. `limit`. */
export const UInt32Schema = z.number().int().min(0).max(4294967295);

/** An unsigned 16-bit integer field (`format: uint16`), e.g. terminal sizes and HTTP statuses. */
export const UInt16Schema = z.number().int().min(0).max(65535);

/** An unsigned machine-size integer field (`format: uint` / `uint64`). */
export const UIntSchema = z.number().int().min(0);

/**
 * A JSON-RPC request id as it appears *inside* a payload (`serverRequest/resolved.requestId`):
 * a string or an integer, echoed with its JSON type unchanged. The envelope's own id schema lives
 * in `jsonrpc.ts`; this one only describes the payload field.
 */
export const PayloadRequestIdSchema = z.union([z.string(), Int64Schema]);
export type PayloadRequestId = z.infer<typeof PayloadRequestIdSchema>;

/**
 * Params of a method the reference defines without params (`account/logout`,
 * `configRequirements/read`, the `initialized` notification). The reference's clients send no
 * `params` key; `null` counts as missing and an object is tolerated and ignored.
 */
export const NoParamsSchema = z.object({}).nullish();
export type NoParams = z.infer<typeof NoParamsSchema>;

/** A result that is an empty object (`{}`) on the wire, e.g. `thread/archive`. */
export const EmptyResultSchema = z.object({});
export type EmptyResult = z.infer<typeof EmptyResultSchema>;
