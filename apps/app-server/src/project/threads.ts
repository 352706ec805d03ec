/**
 * Projection of threads, turns and policies to the app-server wire: `Thread` (Unix seconds,
 * `sessionId`, `source`), `Turn` (items with synthetic `item-N` ids when read back), `TurnError`
 * with `codexErrorInfo`, the thread-session result of start/resume/fork, and the sandbox and
 * approval policies in both directions (engine kebab-case ↔ wire camelCase tagged objects). Pure
 * functions: callers pass in the status and anything else that is not in the engine's values.
 */
import type {
  ApprovalPolicy,
  SandboxPolicy as EngineSandboxPolicy,
  TurnError as EngineTurnError,
  TurnInfo,
} from '@deputy/protocol';
import { AppServer } from '@deputy/protocol';
import type { ThreadSettings, ThreadSummary, TurnRecord } from '@deputy/engine';
import { sandboxGrants, wholeSeconds, type WritableGrant } from '@deputy/engine/facts';
import { reportedApprovalPolicy } from '../generation.js';
import { activeProfileOf } from '../permission-profiles.js';
import { projectItem } from './items.js';

const KNOWN_SOURCES = new Set(['cli', 'vscode', 'exec', 'appServer', 'unknown']);

/** The engine's source string as a wire `SessionSource` (unknown names become `{custom}`). */
export function projectSource(source: string): AppServer.SessionSource {
  return KNOWN_SOURCES.has(source) ? (source as 'cli' | 'vscode' | 'exec' | 'appServer' | 'unknown') : { custom: source };
}

/** Engine `TurnError` → wire `TurnError` (`code` becomes `codexErrorInfo`). */
export function projectTurnError(error: EngineTurnError): AppServer.TurnError {
  const info: AppServer.CodexErrorInfo =
    error.code === 'connectionFailed' ? { httpConnectionFailed: { httpStatusCode: error.httpStatus } } : error.code;
  return { message: error.message, codexErrorInfo: info, additionalDetails: null };
}

/** A turn as notifications carry it: no items, `itemsView: notLoaded`. */
export function projectTurnInfo(info: TurnInfo): AppServer.Turn {
  const done = info.completedAtMs;
  return {
    id: info.id,
    items: [],
    itemsView: 'notLoaded',
    status: info.status,
    error: info.error ? projectTurnError(info.error) : null,
    startedAt: wholeSeconds(info.startedAtMs),
    completedAt: done === null ? null : wholeSeconds(done),
    durationMs: done === null ? null : Math.max(0, done - info.startedAtMs),
    rootTurnId: info.rootTurnId ?? null,
  };
}

/** The `turn/start` result's turn: in progress, nothing known yet but its root (itself by default). */
export function newTurn(turnId: string, rootTurnId: string = turnId): AppServer.Turn {
  return { id: turnId, items: [], itemsView: 'notLoaded', status: 'inProgress', error: null, startedAt: null, completedAt: null, durationMs: null, rootTurnId };
}

/**
 * Turns with their items in full; item ids become `item-1`, `item-2`, … across the thread, except
 * MCP tool calls, which keep their call id and take no number (as the reference reads them back).
 */
export function projectTurns(turns: readonly TurnRecord[]): AppServer.Turn[] {
  let n = 0;
  return turns.map((record) => ({
    ...projectTurnInfo(record.info),
    items: record.items.map((item) => (item.type === 'mcpToolCall' || item.type === 'dynamicToolCall' ? projectItem(item) : projectItem(item, `item-${++n}`))),
    itemsView: 'full' as const,
  }));
}

/** Facts a wire `Thread` needs that a summary or a loaded thread provides. */
export interface ThreadFacts {
  summary: ThreadSummary;
  /** Version of the server that created it. */
  cliVersion: string;
  status: AppServer.ThreadStatus;
  turns?: AppServer.Turn[];
  /** The project it belongs to (`Thread.projectId`); null or absent for none. */
  projectId?: string | null;
  /** Its section (`Thread.section`) and when it entered it (Unix seconds); null or absent for none. */
  section?: AppServer.ThreadSection | null;
  sectionEnteredAt?: number | null;
}

/** Builds a wire `Thread`. */
export function projectThread({ summary, cliVersion, status, turns = [], projectId = null, section = null, sectionEnteredAt = null }: ThreadFacts): AppServer.Thread {
  return {
    id: summary.id,
    sessionId: summary.id,
    forkedFromId: summary.forkedFromId,
    preview: summary.preview,
    ephemeral: summary.ephemeral === true,
    modelProvider: summary.modelProvider,
    createdAt: wholeSeconds(summary.createdAtMs),
    updatedAt: wholeSeconds(summary.updatedAtMs),
    status,
    path: summary.path === '' ? null : summary.path,
    cwd: summary.cwd,
    cliVersion,
    source: projectSource(summary.source),
    threadSource: null,
    agentNickname: null,
    agentRole: null,
    gitInfo: null,
    name: summary.name,
    turns,
    projectId,
    model: summary.model,
    recencyAt: wholeSeconds(summary.updatedAtMs),
    section,
    sectionEnteredAt,
  };
}

/** Engine sandbox policy → wire `SandboxPolicy` (every field sent, as the reference does). */
export function projectSandbox(policy: EngineSandboxPolicy): AppServer.SandboxPolicy {
  switch (policy.type) {
    case 'danger-full-access':
      return { type: 'dangerFullAccess' };
    case 'read-only':
      return { type: 'readOnly', networkAccess: policy.networkAccess };
    case 'workspace-write':
      return {
        type: 'workspaceWrite',
        writableRoots: policy.writableRoots,
        networkAccess: policy.networkAccess,
        excludeTmpdirEnvVar: policy.excludeTmpdirEnvVar,
        excludeSlashTmp: policy.excludeSlashTmp,
      };
  }
}

/**
 * Wire `SandboxPolicy` → engine policy. `externalSandbox` means something outside already
 * confines the process, so the engine adds no sandbox of its own.
 */
export function engineSandbox(policy: AppServer.SandboxPolicy): EngineSandboxPolicy {
  switch (policy.type) {
    case 'dangerFullAccess':
    case 'externalSandbox':
      return { type: 'danger-full-access' };
    case 'readOnly':
      return { type: 'read-only', networkAccess: policy.networkAccess ?? false };
    case 'workspaceWrite':
      return {
        type: 'workspace-write',
        writableRoots: policy.writableRoots ?? [],
        networkAccess: policy.networkAccess ?? false,
        excludeTmpdirEnvVar: policy.excludeTmpdirEnvVar ?? false,
        excludeSlashTmp: policy.excludeSlashTmp ?? false,
      };
  }
}

/**
 * Wire `AskForApproval` → engine policy. The engine has no fine-grained policy: `{granular}`
 * asks when sandbox approvals are allowed (`on-request`) and never otherwise.
 */
export function engineApprovalPolicy(policy: AppServer.AskForApproval): ApprovalPolicy {
  if (typeof policy === 'string') return policy;
  return policy.granular.sandbox_approval ? 'on-request' : 'never';
}

const special = (value: AppServer.FileSystemSpecialPath, access: AppServer.FileSystemAccessMode): AppServer.FileSystemSandboxEntry => ({
  path: { type: 'special', value },
  access,
});

/** The wire's special path of a writable place the engine grants (null for a plain path). */
function specialOf(grant: WritableGrant): AppServer.FileSystemSpecialPath | null {
  switch (grant.kind) {
    case 'workspace':
      return { kind: 'project_roots', subpath: null };
    case 'slashTmp':
      return { kind: 'slash_tmp' };
    case 'tmpdirEnv':
      return { kind: 'tmpdir' };
    case 'path':
      return null;
  }
}

/**
 * The effective permissions of a sandbox policy, as thread-session results report them: the
 * engine's grants renamed (the whole filesystem readable, its writable places, the protected
 * names read-only under the project roots, then the extra roots).
 */
export function permissionProfileOf(policy: EngineSandboxPolicy): AppServer.PermissionProfile {
  const grants = sandboxGrants(policy);
  if (grants === null) return { type: 'disabled' };
  const entries: AppServer.FileSystemSandboxEntry[] = [special({ kind: 'root' }, 'read')];
  for (const grant of grants.writableRoots) {
    const value = specialOf(grant);
    if (value !== null) entries.push(special(value, 'write'));
  }
  for (const name of grants.readOnlySubpaths) entries.push(special({ kind: 'project_roots', subpath: name }, 'read'));
  for (const grant of grants.writableRoots) if (grant.kind === 'path') entries.push({ path: { type: 'path', path: grant.path }, access: 'write' });
  return { type: 'managed', network: { enabled: grants.networkAccess }, fileSystem: { type: 'restricted', entries } };
}

/** Everything the thread-session result needs besides the thread. */
export interface SessionFacts {
  thread: AppServer.Thread;
  settings: ThreadSettings;
  modelProvider: string;
  instructionSources: string[];
}

/** The result of thread/start, thread/resume and thread/fork. */
export function projectSession({ thread, settings, modelProvider, instructionSources }: SessionFacts): AppServer.ThreadSessionResult {
  return {
    thread,
    model: settings.model,
    modelProvider,
    serviceTier: null,
    cwd: settings.cwd,
    instructionSources,
    approvalPolicy: reportedApprovalPolicy(settings.approvalPolicy),
    approvalsReviewer: 'user',
    sandbox: projectSandbox(settings.sandboxPolicy),
    permissionProfile: permissionProfileOf(settings.sandboxPolicy),
    activePermissionProfile: activeProfileOf(settings.sandboxPolicy),
    reasoningEffort: settings.reasoningEffort,
  };
}
