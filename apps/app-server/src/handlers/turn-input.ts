/**
 * Wire turn input → engine input, and wire turn overrides → engine overrides. Text and images pass
 * through; a `skill` input becomes a text part carrying the skill's SKILL.md (what the model needs
 * to follow it) and a `mention` a text reference. Empty input is refused here, before the engine
 * sees it (the reference accepted `[]` and poisoned the next turn; docs/app-server.md
 * "What differs from codex app-server").
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AppServer, UserInput as EngineInput } from '@deputy/protocol';
import type { TurnOverrides } from '@deputy/engine';
import { RpcError } from '@deputy/rpc/core';
import { engineApprovalPolicy, engineSandbox } from '../project/threads.js';
import { defined } from './common.js';

/** Longest SKILL.md text inlined into a turn. */
const MAX_SKILL_BYTES = 64 * 1024;

async function skillText(name: string, file: string): Promise<string> {
  let body: string;
  try {
    body = (await readFile(file, 'utf8')).slice(0, MAX_SKILL_BYTES);
  } catch (e) {
    throw RpcError.invalidRequest(`cannot read skill \`${name}\` at ${file}: ${(e as Error).message}`);
  }
  return `<skill>\n<name>${name}</name>\n<path>${file}</path>\n${body.trim()}\n</skill>`;
}

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
          return { type: 'text', text: await skillText(part.name, path.resolve(cwd, part.path)), text_elements: [] };
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
export function turnOverrides(params: AppServer.TurnStartParams, serverCwd: string): TurnOverrides {
  const schema = params.outputSchema;
  if (schema !== undefined && schema !== null && (typeof schema !== 'object' || Array.isArray(schema))) {
    throw RpcError.invalidRequest('Invalid request: outputSchema must be a JSON Schema object');
  }
  return defined({
    cwd: params.cwd ? path.resolve(serverCwd, params.cwd) : undefined,
    model: params.model ?? undefined,
    approvalPolicy: params.approvalPolicy ? engineApprovalPolicy(params.approvalPolicy) : undefined,
    sandboxPolicy: params.sandboxPolicy ? engineSandbox(params.sandboxPolicy) : undefined,
    reasoningEffort: params.effort ?? undefined,
    reasoningSummary: params.summary ?? undefined,
    outputSchema: (schema as Record<string, unknown> | null | undefined) ?? undefined,
    collaborationMode: params.collaborationMode?.mode,
  }) as TurnOverrides;
}
