/**
 * `deputy exec`: runs one turn in a new thread (or continues one with `exec resume`) and prints
 * the final agent message on stdout. Progress goes to stderr, or JSONL events to stdout with
 * --json. Exit 0 when the turn completed, 1 when it failed or was interrupted.
 */
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ApprovalPolicy, EngineEvent, SandboxMode } from '@deputy/protocol';
import { EngineRuntime, loadConfig, resolveHome, sandboxPolicyFromMode, ThreadManager, ThreadNotFoundError, type ResolvedConfig } from '@deputy/engine';
import { jsonEvent, renderEvent } from './render.js';
import { UsageError } from './usage-error.js';
import { terminalApprovals } from './terminal-approvals.js';

/** Options shared by `exec` and `exec resume`. */
export interface ExecOptions {
  cd?: string;
  model?: string;
  config: string[];
  profile?: string;
  json: boolean;
  sandbox?: SandboxMode;
  askForApproval?: ApprovalPolicy;
  fullAuto: boolean;
}

/** What to run: a new thread, or a resumed one. */
export type ExecTarget = { kind: 'new' } | { kind: 'resume'; threadId: string | 'last' };

/** Reads the prompt (`-` = stdin). */
export async function readPrompt(prompt: string): Promise<string> {
  if (prompt !== '-') return prompt;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Loads config for the CLI and says so when it falls back to the offline demo model (the engine
 * runs that model itself, from the first model request).
 */
export async function loadCliConfig(options: Pick<ExecOptions, 'config' | 'profile' | 'model' | 'cd'>, log: (line: string) => void): Promise<ResolvedConfig> {
  const config = await loadConfig({
    home: resolveHome(process.env),
    cwd: options.cd ?? process.cwd(),
    overrides: options.config,
    profile: options.profile,
    env: process.env,
    modelOverride: options.model,
  });
  // The demo fallback is announced below in the CLI's own words; other warnings pass through.
  for (const warning of config.warnings) if (!(config.usingDemoFallback && warning.includes('demo model'))) log(`warning: ${warning}`);
  if (config.usingDemoFallback) {
    log('deputy: no API key or model provider configured, so this runs the built-in offline demo model (a scripted model, not a real one).');
    log(`deputy: set OPENAI_API_KEY, or set model_provider in ${join(config.home, 'config.toml')}, to use a real model.`);
  }
  return config;
}

/** Runs `deputy exec`; returns the process exit code. */
export async function runExec(target: ExecTarget, promptArg: string, options: ExecOptions): Promise<number> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const prompt = (await readPrompt(promptArg)).trim();
  if (!prompt) {
    log('deputy exec: the prompt is empty');
    return 2;
  }
  if (options.cd !== undefined) options = { ...options, cd: existingDirectory(options.cd) };
  const config = await loadCliConfig(options, log);
  const approvalPolicy: ApprovalPolicy | undefined = options.fullAuto ? 'on-request' : options.askForApproval;
  const sandboxMode: SandboxMode | undefined = options.fullAuto ? 'workspace-write' : options.sandbox;
  const runtime = await EngineRuntime.create({
    config,
    approvals: terminalApprovals({ interactive: process.stdin.isTTY === true && promptArg !== '-', log }),
    source: 'exec',
  });
  const manager = await ThreadManager.open(runtime);
  try {
    const overrides = {
      ...(options.cd ? { cwd: options.cd } : {}),
      ...(options.model ? { model: options.model } : {}),
      ...(approvalPolicy ? { approvalPolicy } : {}),
      ...(sandboxMode ? { sandboxPolicy: sandboxPolicyFromMode(sandboxMode, config.sandboxWorkspaceWrite) } : {}),
    };
    const thread = target.kind === 'new' ? await manager.start(overrides) : await resumeThread(manager, target.threadId, overrides);
    log(`deputy: thread ${thread.id} (${config.modelProviderId}/${thread.settings.model}) in ${thread.settings.cwd}`);
    const off = thread.events.subscribe((event: EngineEvent) => {
      if (options.json) process.stdout.write(`${JSON.stringify(jsonEvent(event))}\n`);
      else for (const line of renderEvent(event)) log(line);
    });
    const onSigint = () => void thread.interrupt();
    process.once('SIGINT', onSigint);
    const handle = thread.startTurn([{ type: 'text', text: prompt }]);
    const turn = await handle.done;
    process.off('SIGINT', onSigint);
    off();
    if (!options.json && turn.lastAgentMessage) process.stdout.write(`${turn.lastAgentMessage}\n`);
    if (turn.status === 'failed') log(`deputy: turn failed: ${turn.error?.message ?? 'unknown error'}`);
    if (turn.status === 'interrupted') log('deputy: turn interrupted');
    log(`deputy: resume with: deputy exec resume ${thread.id} "<prompt>"`);
    return turn.status === 'completed' ? 0 : 1;
  } finally {
    await manager.close();
    await runtime.close();
  }
}

/** The absolute path of `-C DIR`; a usage error when it is not a directory. */
function existingDirectory(dir: string): string {
  const path = resolve(dir);
  let isDirectory = false;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory) throw new UsageError(`deputy exec: -C ${path}: no such directory`);
  return path;
}

/** Resumes a thread by id or `last`; an unknown id is a usage error. */
async function resumeThread(manager: ThreadManager, id: string | 'last', overrides: Parameters<ThreadManager['resume']>[1]) {
  const threadId = await resolveThreadId(manager, id);
  try {
    return await manager.resume(threadId, overrides);
  } catch (error) {
    if (error instanceof ThreadNotFoundError) throw new UsageError(`deputy exec resume: no thread ${threadId} in ${manager.runtime.home}`);
    throw error;
  }
}

async function resolveThreadId(manager: ThreadManager, id: string | 'last'): Promise<string> {
  if (id !== 'last') return id;
  const page = manager.list({ limit: 1, sortKey: 'updated_at' });
  const newest = page.threads[0];
  if (!newest) throw new UsageError('no thread to resume: none has been started yet');
  return newest.id;
}

export { UsageError };
