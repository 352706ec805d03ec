/**
 * Wire turn input → engine input, and wire turn overrides → engine overrides. Text and images pass
 * through; a `skill` input goes to the engine, which attaches the SKILL.md of an enabled skill at
 * that path (docs/extensions.md "Skills"), and a `mention` becomes a text reference. Empty input is refused here, before the engine
 * sees it (the reference accepted `[]` and poisoned the next turn; docs/app-server.md
 * "What differs from codex app-server").
 */
import path from 'node:path';
import type { AppServer, UserInput as EngineInput } from '@deputy/protocol';
import { sandboxPolicyFromMode, type TurnOverrides } from '@deputy/engine';
import type { SandboxPolicy } from '@deputy/protocol';
import { modeOfSelection } from '../permission-profiles.js';
import { RpcError } from '@deputy/rpc/core';
import { engineApprovalPolicy, engineSandbox } from '../project/threads.js';
import { defined } from './common.js';

/** The config's workspace-write settings a `:workspace` profile expands with. */
type WorkspaceWriteOptions = Parameters<typeof sandboxPolicyFromMode>[1];

/** Converts input for a turn in `cwd`; -32600 `input must not be empty` for `[]`. */
export async function engineInput(input: readonly AppServer.UserInput[], cwd: string): Promise<EngineInput[]> {
  if (input.length === 0) throw RpcError.invalidRequest('input must not be empty');
  return Promise.all(
    input.map(async (part): Promise<EngineInput> => {
      switch (part.type) {
        case 'text':
          return { type: 'text', text: part.text, text_elements: part.text_elements ?? [] };
        case 'image':
          return { type: 'image', url: part.url };
        case 'localImage':
          return { type: 'localImage', path: path.resolve(cwd, part.path) };
        case 'skill':
          return { type: 'skill', name: part.name, path: path.resolve(cwd, part.path) };
        case 'mention':
          return { type: 'text', text: `[${part.name}](${part.path})`, text_elements: [] };
      }
    }),
  );
}

/**
 * Engine overrides of a `turn/start`; they become the thread's defaults, as in the reference.
 * A null `effort` or `summary` means "no change" (the TUI sends null on every turn).
 */
export function turnOverrides(params: AppServer.TurnStartParams, serverCwd: string, workspaceWrite?: WorkspaceWriteOptions): TurnOverrides {
  const schema = params.outputSchema;
  if (schema !== undefined && schema !== null && (typeof schema !== 'object' || Array.isArray(schema))) {
    throw RpcError.invalidRequest('Invalid request: outputSchema must be a JSON Schema object');
  }
  return defined({
    cwd: params.cwd ? path.resolve(serverCwd, params.cwd) : undefined,
    model: params.model ?? undefined,
    approvalPolicy: params.approvalPolicy ? engineApprovalPolicy(params.approvalPolicy) : undefined,
    sandboxPolicy: sandboxOverride(params, workspaceWrite),
    reasoningEffort: params.effort ?? undefined,
    reasoningSummary: params.summary ?? undefined,
    outputSchema: (schema as Record<string, unknown> | null | undefined) ?? undefined,
    collaborationMode: params.collaborationMode?.mode,
    clientUserMessageId: params.clientUserMessageId ?? undefined,
    rootTurnId: params.rootTurnId ?? undefined,
  }) as TurnOverrides;
}

/**
 * The sandbox a turn asks for: `permissions` (a profile id, as current clients repeat it on every
 * turn, or the 0.130 object) or `sandboxPolicy`; both at once are refused.
 */
export function sandboxOverride(
  params: Pick<AppServer.TurnStartParams, 'permissions' | 'sandboxPolicy'>,
  workspaceWrite?: WorkspaceWriteOptions,
): SandboxPolicy | undefined {
  if (params.permissions) {
    if (params.sandboxPolicy) throw RpcError.invalidRequest('Invalid request: `permissions` cannot be combined with `sandboxPolicy`');
    return sandboxPolicyFromMode(modeOfSelection(params.permissions), workspaceWrite);
  }
  return params.sandboxPolicy ? engineSandbox(params.sandboxPolicy) : undefined;
}
