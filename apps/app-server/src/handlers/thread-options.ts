/**
 * Wire thread parameters → engine options, shared by thread/start, resume and fork: cwd
 * (relative to the server cwd), model, approval policy, the thread-level sandbox mode expanded
 * with the config's workspace-write settings, instructions, and the `config` object's keys the
 * engine understands per thread (`model`, `model_reasoning_effort`, `model_reasoning_summary`,
 * `approval_policy`, `sandbox_mode`, instructions; dotted or nested; other keys are ignored). A
 * `modelProvider` other than the current config's is refused: new threads run on that provider.
 */
import path from 'node:path';
import { z } from 'zod';
import { AppServer, ApprovalPolicySchema, ReasoningSummarySchema, SandboxModeSchema } from '@deputy/protocol';
import { sandboxPolicyFromMode, type StartThreadOptions } from '@deputy/engine';
import type { SandboxMode } from '@deputy/protocol';
import { RpcError } from '@deputy/rpc/core';
import type { AppContext } from '../app-context.js';
import { modeOfProfile, modeOfSelection } from '../permission-profiles.js';
import { engineApprovalPolicy } from '../project/threads.js';
import { defined } from './common.js';

/** The per-thread keys of the `config` object, as the engine takes them. */
const ThreadConfigSchema = z.object({
  model: z.string().optional(),
  model_reasoning_effort: AppServer.InputReasoningEffortSchema.optional(),
  model_reasoning_summary: ReasoningSummarySchema.optional(),
  approval_policy: ApprovalPolicySchema.optional(),
  sandbox_mode: SandboxModeSchema.optional(),
  base_instructions: z.string().optional(),
  instructions: z.string().optional(),
  developer_instructions: z.string().optional(),
  /** A permission profile id (the 0.169 TUI's title thread sends `:read-only` here). */
  default_permissions: z.string().optional(),
});

/** Turns dotted keys (`a.b`) into nested tables. */
function nest(config: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    const parts = key.split('.');
    let table = out;
    for (const part of parts.slice(0, -1)) {
      const next = table[part];
      table = (table[part] = typeof next === 'object' && next !== null ? next : {}) as Record<string, unknown>;
    }
    table[parts.at(-1) as string] = value;
  }
  return out;
}

function threadConfig(config: Record<string, unknown> | null | undefined): z.infer<typeof ThreadConfigSchema> {
  if (!config) return {};
  const parsed = ThreadConfigSchema.safeParse(nest(config));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw RpcError.invalidRequest(`Invalid request: config.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid value'}`);
}

/** The overrides thread/start, resume and fork share. */
export type ThreadOverrideParams = Pick<
  AppServer.ThreadStartParams,
  'model' | 'modelProvider' | 'cwd' | 'approvalPolicy' | 'sandbox' | 'permissions' | 'config' | 'baseInstructions' | 'developerInstructions'
>;

/**
 * The sandbox mode of a thread's overrides: `permissions` (a profile id or the 0.130 object),
 * `sandbox`, then the config's `default_permissions` and `sandbox_mode`. `permissions` and
 * `sandbox` together are refused, as the reference does.
 */
function sandboxModeOf(params: ThreadOverrideParams, cfg: z.infer<typeof ThreadConfigSchema>): SandboxMode | undefined {
  if (params.permissions) {
    if (params.sandbox) throw RpcError.invalidRequest('Invalid request: `permissions` cannot be combined with `sandbox`');
    return modeOfSelection(params.permissions);
  }
  if (params.sandbox) return params.sandbox;
  if (cfg.default_permissions !== undefined) return modeOfProfile(cfg.default_permissions);
  return cfg.sandbox_mode;
}

/**
 * Engine options for the given wire overrides; absent values are left out so the engine keeps
 * its defaults (the config's for a new thread, the thread's own for a resumed one).
 */
export function threadOptions(app: AppContext, params: ThreadOverrideParams): StartThreadOptions {
  if (params.modelProvider && params.modelProvider !== app.runtime.providerId) {
    throw RpcError.invalidRequest(
      `model provider \`${params.modelProvider}\` is not available: this server runs \`${app.runtime.providerId}\``,
    );
  }
  const cfg = threadConfig(params.config);
  const approval = params.approvalPolicy ? engineApprovalPolicy(params.approvalPolicy) : cfg.approval_policy;
  const mode = sandboxModeOf(params, cfg);
  return defined({
    cwd: params.cwd ? path.resolve(app.cwd, params.cwd) : undefined,
    model: params.model ?? cfg.model,
    approvalPolicy: approval,
    sandboxPolicy: mode ? sandboxPolicyFromMode(mode, app.runtime.config.sandboxWorkspaceWrite) : undefined,
    reasoningEffort: cfg.model_reasoning_effort,
    reasoningSummary: cfg.model_reasoning_summary,
    baseInstructions: params.baseInstructions ?? cfg.base_instructions ?? cfg.instructions,
    developerInstructions: params.developerInstructions ?? cfg.developer_instructions,
  }) as StartThreadOptions;
}
