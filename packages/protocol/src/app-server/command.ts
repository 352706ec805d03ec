/**
 * Params and results of `command/exec` (run a command outside any thread) and its companions
 * `command/exec/write`, `/resize` and `/terminate`, plus the `command/exec/outputDelta` payload.
 * The result comes after the process exits and after its deltas; streamed bytes are not repeated
 * in it. Rules spanning fields (tty needs a processId, timeouts are exclusive) belong to the handler.
 */
import { z } from 'zod';
import { PermissionProfileSchema, SandboxPolicySchema } from './policies.js';
import { Int32Schema, Int64Schema, UInt16Schema, UIntSchema } from './primitives.js';

/** Size of a pseudo-terminal. */
export const TerminalSizeSchema = z.object({
  /** Rows. */
  rows: UInt16Schema,
  /** Columns. */
  cols: UInt16Schema,
});
export type TerminalSize = z.infer<typeof TerminalSizeSchema>;

/** `command/exec` params. */
export const CommandExecParamsSchema = z.object({
  /** argv; `[]` gives `command must not be empty`. */
  command: z.array(z.string()),
  /** Working directory (default: the server cwd). */
  cwd: z.string().nullish(),
  /** Variables merged over the environment; null unsets one. */
  env: z.record(z.string(), z.string().nullable()).nullish(),
  /** Sandbox (default from config); `readOnly` really blocks writes. */
  sandboxPolicy: SandboxPolicySchema.nullish(),
  /** Permission profile instead of a sandbox policy. */
  permissionProfile: PermissionProfileSchema.nullish(),
  /** Timeout in ms; exclusive with `disableTimeout`. A timeout gives `exitCode: 124`. */
  timeoutMs: Int64Schema.nullish(),
  /** Run without a timeout. */
  disableTimeout: z.boolean().optional(),
  /** Per-stream output cap in bytes (default 1 MiB; the cut is silent). */
  outputBytesCap: UIntSchema.nullish(),
  /** Run without an output cap. */
  disableOutputCap: z.boolean().optional(),
  /** Client-chosen id; required for `tty`, `streamStdin` and `streamStdoutStderr`. */
  processId: z.string().nullish(),
  /** Run in a PTY (implies both streams; output arrives on stdout with CRLF). */
  tty: z.boolean().optional(),
  /** Accept stdin through `command/exec/write`. */
  streamStdin: z.boolean().optional(),
  /** Stream output as `command/exec/outputDelta`. */
  streamStdoutStderr: z.boolean().optional(),
  /** Initial PTY size (tty only). */
  size: TerminalSizeSchema.nullish(),
});
export type CommandExecParams = z.infer<typeof CommandExecParamsSchema>;

/** `command/exec` result. */
export const CommandExecResultSchema = z.object({
  /** Exit code; 124 on timeout, -1 after `terminate`. */
  exitCode: Int32Schema,
  /** Captured stdout (`""` when streamed). */
  stdout: z.string(),
  /** Captured stderr (`""` when streamed). */
  stderr: z.string(),
});
export type CommandExecResult = z.infer<typeof CommandExecResultSchema>;

/** `command/exec/write` params; the result is `{}`. */
export const CommandExecWriteParamsSchema = z.object({
  /** The running process (`no active command/exec for process id …` otherwise). */
  processId: z.string(),
  /** Bytes to write, base64. */
  deltaBase64: z.string().nullish(),
  /** Close stdin after writing. */
  closeStdin: z.boolean().optional(),
});
export type CommandExecWriteParams = z.infer<typeof CommandExecWriteParamsSchema>;

/** `command/exec/resize` params; the result is `{}`. */
export const CommandExecResizeParamsSchema = z.object({
  /** The running process. */
  processId: z.string(),
  /** New PTY size. */
  size: TerminalSizeSchema,
});
export type CommandExecResizeParams = z.infer<typeof CommandExecResizeParamsSchema>;

/** `command/exec/terminate` params; the result is `{}`. */
export const CommandExecTerminateParamsSchema = z.object({
  /** The running process. */
  processId: z.string(),
});
export type CommandExecTerminateParams = z.infer<typeof CommandExecTerminateParamsSchema>;

/** `command/exec/outputDelta` params, sent to the connection that owns the process. */
export const CommandExecOutputDeltaSchema = z.object({
  /** The process. */
  processId: z.string(),
  /** Which stream (a PTY reports stdout). */
  stream: z.enum(['stdout', 'stderr']),
  /** The bytes, base64. */
  deltaBase64: z.string(),
  /** The output cap was reached with this delta. */
  capReached: z.boolean(),
});
export type CommandExecOutputDelta = z.infer<typeof CommandExecOutputDeltaSchema>;
