/**
 * `command/exec` and its companions `command/exec/write`, `/resize` and `/terminate` (docs/
 * app-server.md, "Methods served"): one standalone command outside any thread, confined by the
 * engine's sandbox per SandboxPolicy with the engine's shell environment policy, on pipes or on a
 * PTY, in its own process group. This module maps the wire: params checked in the reference's
 * order and words, defaults filled, a permission profile turned into a policy, base64 decoded,
 * and `command/exec/outputDelta` (raw bytes in base64) sent to the calling connection only, each
 * after the previous one was written; the result follows the last delta. Processes are addressed
 * by the client's `processId`, scoped to the connection, and killed when that connection closes.
 * The run itself is `command-process.ts`'s, the child the engine's `ExecChild` (reference:
 * codex-rs/app-server/src/command_exec.rs).
 */
import path from 'node:path';
import { buildChildEnv, ShellEnvironmentPolicySchema, type OutputStream, type ShellEnvironmentPolicy } from '@deputy/engine';
import type { AppServer, SandboxPolicy as EngineSandboxPolicy } from '@deputy/protocol';
import { INVALID_PARAMS } from '@deputy/protocol/jsonrpc';
import { RpcError, type Connection } from '@deputy/rpc/core';
import type { AppContext } from '../app-context.js';
import type { ConnectionState } from '../connection-state.js';
import { engineSandbox } from '../project/threads.js';
import { CommandRun, type CommandPlan, type DeliverDelta } from './command-process.js';
import type { Handlers } from './types.js';

/** Timeout of a request that sets none (reference: `DEFAULT_EXEC_COMMAND_TIMEOUT_MS`). */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Per-stream output cap of a request that sets none (reference: `DEFAULT_OUTPUT_BYTES_CAP`). */
export const DEFAULT_OUTPUT_BYTES_CAP = 1024 * 1024;
/** The longest delay `setTimeout` takes; longer timeouts are clamped to it. */
export const MAX_TIMER_MS = 2_147_483_647;
/** PTY size when the request gives none (reference: `TerminalSize::default`). */
export const DEFAULT_SIZE: AppServer.TerminalSize = { rows: 24, cols: 80 };

/** A -32602 with the reference's words. */
export const invalidParams = (message: string): RpcError => new RpcError(INVALID_PARAMS, message);
/** An id as the reference prints it in messages: JSON, so `"p1"`. */
const quoted = (processId: string): string => JSON.stringify(processId);

/** A PTY size with both dimensions positive (`method` names the request in the error). */
export function checkedSize(size: AppServer.TerminalSize, method = 'command/exec'): AppServer.TerminalSize {
  if (size.rows === 0 || size.cols === 0) throw invalidParams(`${method} size rows and cols must be greater than 0`);
  return size;
}

/** Strict standard base64 (padded), as the reference decodes `deltaBase64`. */
export function decodeBase64(text: string): Buffer {
  const bad = text.search(/[^A-Za-z0-9+/=]/);
  if (bad !== -1) throw invalidParams(`invalid deltaBase64: Invalid symbol ${text.charCodeAt(bad)}, offset ${bad}.`);
  if (text.length % 4 !== 0) throw invalidParams('invalid deltaBase64: Invalid input length.');
  if (!/^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) throw invalidParams('invalid deltaBase64: Invalid padding');
  return Buffer.from(text, 'base64');
}

/**
 * The engine policy closest to a permission profile: no sandbox for `disabled` and `external`,
 * read-only without write entries, else workspace-write over the cwd plus the profile's write
 * paths and temp dirs. Write access to the whole filesystem with the network off cannot be
 * expressed with bwrap's policies here and is refused.
 */
function sandboxFromProfile(profile: AppServer.PermissionProfile): EngineSandboxPolicy {
  if (profile.type !== 'managed') return { type: 'danger-full-access' };
  const networkAccess = profile.network.enabled;
  const { fileSystem } = profile;
  const writes = fileSystem.type === 'unrestricted' ? null : fileSystem.entries.filter((e) => e.access === 'write').map((e) => e.path);
  const isSpecial = (p: AppServer.FileSystemPath, kind: string): boolean => p.type === 'special' && p.value.kind === kind;
  if (writes === null || writes.some((p) => isSpecial(p, 'root'))) {
    if (networkAccess) return { type: 'danger-full-access' };
    throw RpcError.invalidRequest('invalid permission profile: write access to the whole filesystem without network access is not supported');
  }
  if (writes.length === 0) return { type: 'read-only', networkAccess };
  return {
    type: 'workspace-write',
    writableRoots: writes.flatMap((p) => (p.type === 'path' ? [p.path] : [])),
    networkAccess,
    excludeTmpdirEnvVar: !writes.some((p) => isSpecial(p, 'tmpdir')),
    excludeSlashTmp: !writes.some((p) => isSpecial(p, 'slash_tmp')),
  };
}

/** The child environment (the shell environment policy's) with the request's overrides; null unsets. */
export function childEnvWith(envPolicy: ShellEnvironmentPolicy, overrides: Record<string, string | null> | null | undefined): Record<string, string> {
  const env = buildChildEnv(process.env, envPolicy);
  for (const [name, value] of Object.entries(overrides ?? {})) {
    if (value === null) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Checks the params the way the reference does, in its order, and fills the defaults. */
function planCommand(params: AppServer.CommandExecParams, app: AppContext, envPolicy: ShellEnvironmentPolicy): CommandPlan {
  if (params.command.length === 0) throw RpcError.invalidRequest('command must not be empty');
  if (params.sandboxPolicy != null && params.permissionProfile != null) {
    throw RpcError.invalidRequest('`permissionProfile` cannot be combined with `sandboxPolicy`');
  }
  const tty = params.tty === true;
  if (params.size != null && !tty) throw invalidParams('command/exec size requires tty: true');
  if (params.disableOutputCap === true && params.outputBytesCap != null) {
    throw invalidParams('command/exec cannot set both outputBytesCap and disableOutputCap');
  }
  if (params.disableTimeout === true && params.timeoutMs != null) throw invalidParams('command/exec cannot set both timeoutMs and disableTimeout');
  if (params.timeoutMs != null && params.timeoutMs < 0) throw invalidParams(`command/exec timeoutMs must be non-negative, got ${params.timeoutMs}`);
  const size = params.size != null ? checkedSize(params.size) : DEFAULT_SIZE;
  const streamStdin = tty || params.streamStdin === true;
  const streamOutput = tty || params.streamStdoutStderr === true;
  const processId = params.processId ?? null;
  if (processId === null && (streamStdin || streamOutput)) {
    throw RpcError.invalidRequest('command/exec tty or streaming requires a client-supplied processId');
  }
  const env = childEnvWith(envPolicy, params.env);
  let sandbox = app.config.sandboxPolicy;
  if (params.sandboxPolicy != null) sandbox = engineSandbox(params.sandboxPolicy);
  else if (params.permissionProfile != null) sandbox = sandboxFromProfile(params.permissionProfile);
  return {
    argv: params.command,
    cwd: path.resolve(app.cwd, params.cwd ?? '.'),
    env,
    sandbox,
    hiddenPaths: app.runtime.sandboxHiddenPaths,
    processId,
    tty,
    streamStdin,
    streamOutput,
    size,
    timeoutMs: params.disableTimeout === true ? null : Math.min(params.timeoutMs ?? DEFAULT_TIMEOUT_MS, MAX_TIMER_MS),
    outputCap: params.disableOutputCap === true ? null : (params.outputBytesCap ?? DEFAULT_OUTPUT_BYTES_CAP),
  };
}

/** Where `processId`'s deltas go: the owning connection, each delta awaited until written. */
function deltasTo(state: ConnectionState, processId: string): DeliverDelta {
  return async (stream: OutputStream, bytes: Buffer, capReached: boolean) => {
    state.notify('command/exec/outputDelta', { processId, stream, deltaBase64: bytes.toString('base64'), capReached });
    await state.connection.flush();
  };
}

/** The handlers of this area. */
export function commandHandlers(app: AppContext): Handlers {
  const envPolicy = ShellEnvironmentPolicySchema.parse(app.config.shellEnvironmentPolicy ?? {});
  /** Each connection's running commands by client process id. */
  const runs = new WeakMap<Connection, Map<string, CommandRun>>();
  const runsOf = (connection: Connection): Map<string, CommandRun> => {
    let table = runs.get(connection);
    if (!table) runs.set(connection, (table = new Map()));
    return table;
  };
  const active = (connection: Connection, processId: string): CommandRun => {
    const run = runs.get(connection)?.get(processId);
    if (!run) throw RpcError.invalidRequest(`no active command/exec for process id ${quoted(processId)}`);
    return run;
  };
  return {
    'command/exec': async (params, ctx) => {
      const plan = planCommand(params, app, envPolicy);
      const table = runsOf(ctx.connection);
      const id = plan.processId;
      if (id !== null && table.has(id)) throw RpcError.invalidRequest(`duplicate active command/exec process id: ${quoted(id)}`);
      const run = new CommandRun(plan, plan.streamOutput && id !== null ? deltasTo(app.stateOf(ctx.connection), id) : null);
      if (id !== null) table.set(id, run);
      try {
        // The request's signal aborts when the connection closes, which kills the command.
        return await run.run(ctx.signal);
      } finally {
        if (id !== null) table.delete(id);
      }
    },
    'command/exec/write': (params, ctx) => {
      if (params.deltaBase64 == null && params.closeStdin !== true) throw invalidParams('command/exec/write requires deltaBase64 or closeStdin');
      const bytes = params.deltaBase64 == null ? Buffer.alloc(0) : decodeBase64(params.deltaBase64);
      active(ctx.connection, params.processId).write(bytes, params.closeStdin === true);
      return {};
    },
    'command/exec/resize': (params, ctx) => {
      const size = checkedSize(params.size);
      active(ctx.connection, params.processId).resize(size);
      return {};
    },
    'command/exec/terminate': (params, ctx) => {
      active(ctx.connection, params.processId).terminate();
      return {};
    },
  };
}
