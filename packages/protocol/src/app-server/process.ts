/**
 * Params and payloads of the client-run processes (experimental): `process/spawn`,
 * `process/writeStdin`, `process/kill` and `process/resizePty`, with the `process/outputDelta`
 * and `process/exited` notifications. A process is addressed by the client's `processHandle`,
 * scoped to the connection that spawned it; `process/spawn` answers `{}` once the process has
 * started, and its output and exit follow as notifications to that connection only.
 */
import { z } from 'zod';
import { AbsolutePathSchema, Int32Schema, Int64Schema, UIntSchema } from './primitives.js';
import { TerminalSizeSchema } from './command.js';

/** `process/spawn` params. */
export const ProcessSpawnParamsSchema = z.object({
  /** argv; `[]` is refused. */
  command: z.array(z.string()),
  /** The client's handle for the process (unique among this connection's running processes). */
  processHandle: z.string(),
  /** Absolute working directory. */
  cwd: AbsolutePathSchema,
  /** Run on a PTY (implies `streamStdin` and `streamStdoutStderr`). */
  tty: z.boolean().optional(),
  /** Accept `process/writeStdin`. */
  streamStdin: z.boolean().optional(),
  /** Stream output as `process/outputDelta` instead of returning it in `process/exited`. */
  streamStdoutStderr: z.boolean().optional(),
  /** Per-stream capture cap in bytes: omitted for the default (1 MiB), null for none. */
  outputBytesCap: UIntSchema.nullish(),
  /** Timeout in ms: omitted for the default (10 s), null for none. */
  timeoutMs: Int64Schema.nullish(),
  /** Variables merged over the environment; null unsets one. */
  env: z.record(z.string(), z.string().nullable()).nullish(),
  /** Initial PTY size (only with `tty`). */
  size: TerminalSizeSchema.nullish(),
});
export type ProcessSpawnParams = z.infer<typeof ProcessSpawnParamsSchema>;

/** `process/writeStdin` params: bytes to stdin, then EOF when asked. */
export const ProcessWriteStdinParamsSchema = z.object({
  /** The process. */
  processHandle: z.string(),
  /** Base64 bytes to write. */
  deltaBase64: z.string().nullish(),
  /** Close stdin after writing. */
  closeStdin: z.boolean().optional(),
});
export type ProcessWriteStdinParams = z.infer<typeof ProcessWriteStdinParamsSchema>;

/** `process/kill` params. */
export const ProcessKillParamsSchema = z.object({ /** The process. */ processHandle: z.string() });
export type ProcessKillParams = z.infer<typeof ProcessKillParamsSchema>;

/** `process/resizePty` params. */
export const ProcessResizePtyParamsSchema = z.object({
  /** The process. */
  processHandle: z.string(),
  /** New size in character cells. */
  size: TerminalSizeSchema,
});
export type ProcessResizePtyParams = z.infer<typeof ProcessResizePtyParamsSchema>;

/** `process/outputDelta`: a chunk of streamed output (to the owning connection only). */
export const ProcessOutputDeltaSchema = z.object({
  /** The process. */
  processHandle: z.string(),
  /** Which stream (a PTY reports stdout). */
  stream: z.enum(['stdout', 'stderr']),
  /** The bytes, base64. */
  deltaBase64: z.string(),
  /** True on the last chunk of a stream the cap cut. */
  capReached: z.boolean(),
});
export type ProcessOutputDelta = z.infer<typeof ProcessOutputDeltaSchema>;

/** `process/exited`: the process ended (after its last delta). */
export const ProcessExitedSchema = z.object({
  /** The process. */
  processHandle: z.string(),
  /** Exit code; 124 after the timeout, -1 when killed by a signal. */
  exitCode: Int32Schema,
  /** Buffered stdout (empty when streamed). */
  stdout: z.string(),
  /** Buffered stderr (empty when streamed). */
  stderr: z.string(),
  /** stdout reached the cap. */
  stdoutCapReached: z.boolean(),
  /** stderr reached the cap. */
  stderrCapReached: z.boolean(),
});
export type ProcessExited = z.infer<typeof ProcessExitedSchema>;
