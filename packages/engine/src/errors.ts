/**
 * Engine errors. Each carries a stable string `code`; front doors map them to their wire (the
 * app-server's `toRpcError`, the MCP server's `isError` results). They never cross a wire as is.
 */

/** Base class of the engine's own errors. */
export class EngineError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** No thread with that id exists (neither loaded nor on disk). */
export class ThreadNotFoundError extends EngineError {
  constructor(readonly threadId: string) {
    super('thread_not_found', `thread not found: ${threadId}`);
  }
}

/** A turn is already running on the thread. */
export class TurnInProgressError extends EngineError {
  constructor(
    readonly threadId: string,
    readonly activeTurnId: string,
  ) {
    super('turn_in_progress', `thread ${threadId} is busy: turn ${activeTurnId} is still running`);
  }
}

/** No turn is running (steer without an active turn). */
export class NoActiveTurnError extends EngineError {
  constructor() {
    super('no_active_turn', 'no active turn to steer');
  }
}

/** The running turn takes no steer input (a compaction or review turn). */
export class TurnNotSteerableError extends EngineError {
  constructor(readonly turnKind: 'compact' | 'review') {
    super('turn_not_steerable', `the active turn is a ${turnKind} turn, which cannot be steered`);
  }
}

/** The caller named a turn that is not the active one. */
export class TurnMismatchError extends EngineError {
  constructor(expected: string, actual: string) {
    super('turn_mismatch', `expected active turn id \`${expected}\` but found \`${actual}\``);
  }
}

/** A thread could not start because a `required = true` MCP server failed (the thread is unloaded). */
export class McpRequiredServersError extends EngineError {
  constructor(message: string) {
    super('mcp_required_failed', message);
  }
}

/** Input the engine cannot accept (empty input, unknown turn to fork at, …). */
export class InvalidInputError extends EngineError {
  constructor(message: string) {
    super('invalid_input', message);
  }
}
