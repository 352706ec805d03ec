/**
 * The two ways a patch can fail: the text does not follow the grammar (`PatchParseError`), or it
 * does not fit the files on disk (`PatchApplyError`). Both messages are written for the model: they
 * say where the problem is and what was expected, so it can correct the patch and retry. This
 * module only defines the errors; it never decides which one applies.
 */
import { EngineError } from '../../errors.js';

/** The patch text does not follow the apply_patch grammar. Nothing was read or written. */
export class PatchParseError extends EngineError {
  /** 1-based line in the patch (the `*** Begin Patch` line is line 1), or null for envelope errors. */
  readonly lineNumber: number | null;
  /** The bare reason, without the "Invalid patch" prefix. */
  readonly reason: string;

  /**
   * @param reason what is wrong, e.g. "Update hunk does not contain any lines"
   * @param lineNumber where (1-based, `*** Begin Patch` = 1); null when the envelope itself is wrong
   */
  constructor(reason: string, lineNumber: number | null = null) {
    // Same layout as the reference's stderr, which models have seen in training.
    super(
      'patch_parse_error',
      lineNumber === null ? `Invalid patch: ${reason}` : `Invalid patch hunk on line ${lineNumber}: ${reason}`,
    );
    this.reason = reason;
    this.lineNumber = lineNumber;
  }
}

/** The patch parsed but cannot be applied (missing file, context not found, write failed). */
export class PatchApplyError extends EngineError {
  /** The file the failure concerns, as shown in the message (relative to cwd when inside it). */
  readonly path: string | null;
  /** 1-based number of the failing `@@` chunk within its file section, when one is to blame. */
  readonly chunk: number | null;

  /**
   * @param message the model-facing text
   * @param details the file and chunk the failure concerns, and the underlying error, when known
   */
  constructor(message: string, details: { path?: string | null; chunk?: number | null; cause?: unknown } = {}) {
    super('patch_apply_error', message);
    this.path = details.path ?? null;
    this.chunk = details.chunk ?? null;
    if (details.cause !== undefined) this.cause = details.cause;
  }
}
