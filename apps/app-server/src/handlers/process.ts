/**
 * The client-run processes (experimental; docs/extensions.md "Client-run processes"):
 * `process/spawn`, `process/writeStdin`, `process/kill` and `process/resizePty`. A process runs
 * like a `command/exec` (the same `CommandRun` on the engine's `ExecChild`: sandboxed per the
 * server's sandbox policy with the shell environment policy, on pipes or a PTY, in its own process
 * group, with the per-stream cap and the timeout), but `process/spawn` answers `{}` once it has
 * started; its output follows as `process/outputDelta` (when streamed) and its end as
 * `process/exited`, to the spawning connection only and never before the spawn's response.
 * Handles are scoped to the connection; a connection's processes are killed when it closes
 * (reference: codex-rs/app-server/src/process_exec.rs).
 */
import { ShellEnvironmentPolicySchema, type OutputStream } from '@deputy/engine';
import type { AppServer } from '@deputy/protocol';
import { RpcError, type Connection } from '@deputy/rpc/core';
import { afterResponse, type AppContext } from '../app-context.js';
import type { ConnectionState } from '../connection-state.js';
import { CommandRun, type CommandPlan, type DeliverDelta } from './command-process.js';
import { checkedSize, childEnvWith, decodeBase64, DEFAULT_OUTPUT_BYTES_CAP, DEFAULT_SIZE, DEFAULT_TIMEOUT_MS, invalidParams, MAX_TIMER_MS } from './command.js';
import type { Handlers } from './types.js';

/** Checks `process/spawn` params the way the reference does and fills the defaults. */
function planProcess(params: AppServer.ProcessSpawnParams, app: AppContext): CommandPlan {
  if (params.command.length === 0) throw RpcError.invalidRequest('command must not be empty');
  if (params.processHandle === '') throw RpcError.invalidRequest('processHandle must not be empty');
  const tty = params.tty === true;
  if (params.size != null && !tty) throw invalidParams('process/spawn size requires tty: true');
  if (params.timeoutMs != null && params.timeoutMs < 0) throw invalidParams(`process/spawn timeoutMs must be non-negative, got ${params.timeoutMs}`);
  const envPolicy = ShellEnvironmentPolicySchema.parse(app.config.shellEnvironmentPolicy ?? {});
  return {
    argv: params.command,
    cwd: params.cwd,
    env: childEnvWith(envPolicy, params.env),
    sandbox: app.config.sandboxPolicy,
    hiddenPaths: app.runtime.sandboxHiddenPaths,
    processId: params.processHandle,
    tty,
    streamStdin: tty || params.streamStdin === true,
    streamOutput: tty || params.streamStdoutStderr === true,
    size: params.size != null ? checkedSize(params.size, 'process/spawn') : DEFAULT_SIZE,
    // Omitted: the default; null: none.
    timeoutMs: params.timeoutMs === null ? null : Math.min(params.timeoutMs ?? DEFAULT_TIMEOUT_MS, MAX_TIMER_MS),
    outputCap: params.outputBytesCap === null ? null : (params.outputBytesCap ?? DEFAULT_OUTPUT_BYTES_CAP),
  };
}

/** Deltas of `processHandle` to the owning connection, each after `ready` (the spawn's response) and awaited until written. */
function deltasTo(state: ConnectionState, processHandle: string, ready: Promise<void>): DeliverDelta {
  return async (stream: OutputStream, bytes: Buffer, capReached: boolean) => {
    await ready;
    state.notify('process/outputDelta', { processHandle, stream, deltaBase64: bytes.toString('base64'), capReached });
    await state.connection.flush();
  };
}

/** The handlers of this area. */
export function processHandlers(app: AppContext): Handlers {
  /** Each connection's running processes by handle. */
  const runs = new WeakMap<Connection, Map<string, CommandRun>>();
  const runsOf = (connection: Connection): Map<string, CommandRun> => {
    let table = runs.get(connection);
    if (!table) runs.set(connection, (table = new Map()));
    return table;
  };
  const active = (connection: Connection, handle: string): CommandRun => {
    const run = runs.get(connection)?.get(handle);
    if (!run) throw RpcError.invalidRequest(`no active process for process handle ${JSON.stringify(handle)}`);
    return run;
  };
  return {
    'process/spawn': async (params, ctx) => {
      const plan = planProcess(params, app);
      const table = runsOf(ctx.connection);
      const handle = params.processHandle;
      if (table.has(handle)) throw RpcError.invalidRequest(`duplicate active process handle: ${JSON.stringify(handle)}`);
      const state = app.stateOf(ctx.connection);
      let markReady!: () => void;
      const ready = new Promise<void>((resolve) => (markReady = resolve));
      const run = new CommandRun(plan, plan.streamOutput ? deltasTo(state, handle, ready) : null);
      table.set(handle, run);
      // The connection's life, not this request's: the process outlives the response.
      const done = run.run(ctx.connection.signal);
      try {
        await Promise.race([run.started, done]);
      } catch (error) {
        table.delete(handle);
        if (error instanceof RpcError) throw RpcError.internal(error.message.replace('failed to spawn command', 'failed to spawn process'));
        throw error;
      }
      afterResponse(ctx, markReady);
      void done
        .then(
          async (result) => {
            await ready;
            const exited = { processHandle: handle, ...result, stdoutCapReached: run.capReached('stdout'), stderrCapReached: run.capReached('stderr') };
            state.notify('process/exited', exited);
          },
          (error: unknown) => app.logger.info('a client-run process failed', { processHandle: handle, error: String(error) }),
        )
        .finally(() => {
          if (table.get(handle) === run) table.delete(handle);
        });
      return {};
    },
    'process/writeStdin': (params, ctx) => {
      if (params.deltaBase64 == null && params.closeStdin !== true) throw invalidParams('process/writeStdin requires deltaBase64 or closeStdin');
      const bytes = params.deltaBase64 == null ? Buffer.alloc(0) : decodeBase64(params.deltaBase64);
      active(ctx.connection, params.processHandle).write(bytes, params.closeStdin === true);
      return {};
    },
    'process/resizePty': (params, ctx) => {
      const size = checkedSize(params.size, 'process/resizePty');
      active(ctx.connection, params.processHandle).resize(size);
      return {};
    },
    'process/kill': (params, ctx) => {
      active(ctx.connection, params.processHandle).terminate();
      return {};
    },
  };
}
