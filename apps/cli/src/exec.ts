/**
 * `deputy exec`: runs one turn in a new thread (or continues one with `exec resume`), speaking
 * `codex exec`'s command line. The final agent message goes to stdout; progress to stderr, or
 * with `--json` (`--experimental-json`) the reference's JSONL stream (exec-jsonl.ts) to stdout,
 * or with `--engine-json` Deputy's own engine events. Exit 0 when the turn completed, 1 when it
 * failed or was interrupted, the run could not start or the config is invalid, 2 for usage errors
 * (docs/exec.md).
 */
import { statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { displayLines, displayText, type ApprovalPolicy, type EngineEvent, type SandboxMode, type UserInput } from '@deputy/protocol';
import {
  ConfigError,
  EngineRuntime,
  findRepositoryRoot,
  loadConfig,
  resolveHome,
  sandboxPolicyFromMode,
  ThreadManager,
  ThreadNotFoundError,
  type ResolvedConfig,
  type TurnOverrides,
} from '@deputy/engine';
import { ExecJsonlMapper } from './exec-jsonl.js';
import { jsonEvent, renderEvent } from './render.js';
import { UsageError } from './usage-error.js';
import { terminalApprovals } from './terminal-approvals.js';

/** Options shared by `exec` and `exec resume`. */
export interface ExecOptions {
  cd?: string;
  model?: string;
  config: string[];
  profile?: string;
  /** `--json` / `--experimental-json`: the codex exec JSONL stream. */
  json: boolean;
  experimentalJson?: boolean;
  /** `--engine-json`: Deputy's engine events. */
  engineJson?: boolean;
  sandbox?: SandboxMode;
  askForApproval?: ApprovalPolicy;
  fullAuto: boolean;
  dangerouslyBypassApprovalsAndSandbox?: boolean;
  skipGitRepoCheck?: boolean;
  addDir?: string[];
  outputSchema?: string;
  outputLastMessage?: string;
  image?: string[];
}

/** What to run: a new thread, or a resumed one. */
export type ExecTarget = { kind: 'new' } | { kind: 'resume'; threadId: string | 'last' };

/**
 * An error the reference reports on stderr with exit 1: `message` is its line, `hint` an
 * optional line of Deputy's own (`deputy: ...`) after it.
 */
export class ExecStartError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The prompt as `codex exec` takes it: the argument; or stdin when it is absent or `-`; and when
 * an argument is given and stdin is piped, stdin's text appended as a `<stdin>` block.
 */
export async function readPrompt(prompt: string | undefined, log: (line: string) => void): Promise<string> {
  if (prompt === undefined || prompt === '-') {
    if (prompt === undefined && process.stdin.isTTY) throw new ExecStartError('No prompt provided. Either specify one as an argument or pipe the prompt into stdin.');
    if (prompt === undefined) log('Reading prompt from stdin...');
    const text = await readStdin();
    if (text.trim() === '') throw new ExecStartError('No prompt provided via stdin.');
    return text.trim();
  }
  if (process.stdin.isTTY) return prompt;
  log('Reading additional input from stdin...');
  const extra = await readStdin();
  if (extra.trim() === '') return prompt;
  return `${prompt}\n\n<stdin>\n${extra.replace(/\n$/, '')}\n</stdin>`;
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
export async function runExec(target: ExecTarget, promptArg: string | undefined, options: ExecOptions): Promise<number> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  try {
    return await runExecChecked(target, promptArg, options, log);
  } catch (error) {
    if (error instanceof ConfigError) {
      log(referenceConfigMessage(error));
      return 1;
    }
    if (!(error instanceof ExecStartError)) throw error;
    log(error.message);
    if (error.hint) log(`deputy: ${error.hint}`);
    return 1;
  }
}

/**
 * A config error in `codex exec`'s words (exit 1, as the reference): `Error parsing -c overrides:
 * Invalid override (missing '='): RAW` for a `-c` without `=`, ``Error: config profile `NAME` not
 * found`` for an unknown profile, each followed by Deputy's own `deputy: ` line, and `Error loading
 * config.toml: ` followed by Deputy's detail (file, line, key, what was expected) for the rest
 * (syntax, a bad value in the file or in a `-c`), where the reference prints serde's wording.
 */
function referenceConfigMessage(error: ConfigError): string {
  const subject = error.subject ?? '';
  if (error.kind === 'override-syntax' && !subject.includes('=')) return `Error parsing -c overrides: Invalid override (missing '='): ${subject}\ndeputy: ${error.message}`;
  if (error.kind === 'override-syntax') return `Error parsing -c overrides: ${error.message}`;
  if (error.kind === 'unknown-profile') return `Error: config profile \`${subject}\` not found\ndeputy: ${error.message}`;
  return `Error loading config.toml: ${error.message}`;
}

async function runExecChecked(target: ExecTarget, promptArg: string | undefined, options: ExecOptions, log: (line: string) => void): Promise<number> {
  const json = options.json || options.experimentalJson === true;
  if (json && options.engineJson) throw new UsageError('deputy exec: --json and --engine-json cannot be used together');
  if (options.cd !== undefined) options = { ...options, cd: existingDirectory(options.cd) };
  const outputSchema = options.outputSchema === undefined ? undefined : await readOutputSchema(options.outputSchema);
  const config = await loadCliConfig(options, log);
  const cwd = options.cd ?? config.cwd;
  if (!options.skipGitRepoCheck && config.projectTrust !== 'trusted' && findRepositoryRoot(cwd) === null) {
    throw new ExecStartError('Not inside a trusted directory and --skip-git-repo-check was not specified.', `${cwd} is not in a git repository; pass --skip-git-repo-check to run here anyway`);
  }
  const prompt = await readPrompt(promptArg, log);
  const bypass = options.dangerouslyBypassApprovalsAndSandbox === true;
  const approvalPolicy: ApprovalPolicy | undefined = bypass ? 'never' : options.fullAuto ? 'on-request' : options.askForApproval;
  const sandboxMode: SandboxMode | undefined = bypass ? 'danger-full-access' : options.fullAuto ? 'workspace-write' : options.sandbox;
  const addDirs = (options.addDir ?? []).map((dir) => resolve(dir));
  const effectiveMode = sandboxMode ?? config.sandboxMode;
  const sandboxPolicy =
    sandboxMode !== undefined || (addDirs.length > 0 && effectiveMode === 'workspace-write')
      ? sandboxPolicyFromMode(effectiveMode, { ...config.sandboxWorkspaceWrite, writableRoots: [...config.sandboxWorkspaceWrite.writableRoots, ...addDirs] })
      : undefined;
  if (addDirs.length > 0 && effectiveMode !== 'workspace-write') log(`warning: --add-dir has no effect with sandbox ${effectiveMode}`);
  const runtime = await EngineRuntime.create({
    config,
    approvals: terminalApprovals({ interactive: process.stdin.isTTY === true && promptArg !== '-' && promptArg !== undefined, log }),
    source: 'exec',
    // One turn that may run no command: no login shell or spawn helper is started for it ahead.
    prewarmShells: false,
  });
  const manager = await ThreadManager.open(runtime);
  try {
    const overrides: TurnOverrides = {
      ...(options.cd ? { cwd: options.cd } : {}),
      ...(options.model ? { model: options.model } : {}),
      ...(approvalPolicy ? { approvalPolicy } : {}),
      ...(sandboxPolicy ? { sandboxPolicy } : {}),
    };
    const thread = target.kind === 'new' ? await manager.start(overrides) : await resumeThread(manager, target.threadId, overrides);
    const mapper = new ExecJsonlMapper();
    const print = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);
    if (json) print(mapper.threadStarted(thread.id));
    else log(`deputy: thread ${thread.id} (${config.modelProviderId}/${thread.settings.model}) in ${thread.settings.cwd}`);
    const off = thread.events.subscribe((event: EngineEvent) => {
      if (json) for (const line of mapper.map(event)) print(line);
      else if (options.engineJson) print(jsonEvent(event));
      else for (const line of renderEvent(event)) log(line);
    });
    const onSigint = () => void thread.interrupt();
    process.once('SIGINT', onSigint);
    process.once('SIGTERM', onSigint);
    const input: UserInput[] = [{ type: 'text', text: prompt }, ...(options.image ?? []).map((path): UserInput => ({ type: 'localImage', path: resolve(path) }))];
    const handle = thread.startTurn(input, outputSchema === undefined ? {} : { outputSchema });
    const turn = await handle.done;
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
    off();
    const finalMessage = turn.status === 'completed' ? turn.lastAgentMessage : null;
    if (!json && !options.engineJson && finalMessage) process.stdout.write(`${finalAnswerText(finalMessage, process.stdout.isTTY === true)}\n`);
    if (options.outputLastMessage !== undefined && turn.status === 'completed') writeLastMessage(options.outputLastMessage, finalMessage, log);
    if (!json) {
      if (turn.status === 'failed') log(`deputy: turn failed: ${displayText(turn.error?.message ?? 'unknown error')}`);
      if (turn.status === 'interrupted') log('deputy: turn interrupted');
      log(`deputy: resume with: deputy exec resume ${thread.id} "<prompt>"`);
    }
    return turn.status === 'completed' ? 0 : 1;
  } finally {
    await manager.close();
    await runtime.close();
  }
}

/**
 * The final answer as printed: exactly the model's text when stdout is a pipe or a file (it is
 * data for scripts, and `-o` writes it as is too); on a terminal, with controls and invisible
 * characters escaped but line breaks and tabs kept (displayLines), because an ANSI sequence in it
 * could otherwise clear the screen, rewrite the progress above it or set the clipboard (OSC 52).
 */
export function finalAnswerText(message: string, isTerminal: boolean): string {
  return isTerminal ? displayLines(message) : message;
}

/** `--output-schema FILE`: the JSON Schema object the final answer must follow. */
async function readOutputSchema(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ExecStartError(`Failed to read output schema file ${file}: ${osMessage(error)}`);
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new ExecStartError(`Output schema file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw new ExecStartError(`Output schema file ${file} must contain a JSON object`);
  return schema as Record<string, unknown>;
}

/** `-o FILE`: the last agent message, as is (no newline added); a warning when there is none or it cannot be written. */
function writeLastMessage(file: string, message: string | null, log: (line: string) => void): void {
  if (message === null) log(`Warning: no last agent message; wrote empty content to ${file}`);
  try {
    writeFileSync(file, message ?? '');
  } catch (error) {
    log(`Failed to write last message file ${file}: ${osMessage(error)}`);
  }
}

/** `No such file or directory (os error 2)`: an errno error in the reference's words. */
function osMessage(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'No such file or directory (os error 2)';
  if (code === 'EACCES') return 'Permission denied (os error 13)';
  if (code === 'EISDIR') return 'Is a directory (os error 21)';
  return error instanceof Error ? error.message : String(error);
}

/** The absolute path of `-C DIR`; the reference's error when it is not a directory. */
function existingDirectory(dir: string): string {
  const path = resolve(dir);
  let isDirectory = false;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory) throw new ExecStartError('Error: No such file or directory (os error 2)', `-C ${path}: no such directory`);
  return path;
}

/** Resumes a thread by id or `last`; `--last` without any thread starts a new one, as the reference does. */
async function resumeThread(manager: ThreadManager, id: string | 'last', overrides: TurnOverrides) {
  const threadId = resolveThreadId(manager, id);
  if (threadId === null) return manager.start(overrides);
  try {
    return await manager.resume(threadId, overrides);
  } catch (error) {
    if (error instanceof ThreadNotFoundError) {
      throw new ExecStartError(`Error: thread/resume: thread/resume failed: no rollout found for thread id ${threadId} (code -32600)`, `no thread ${threadId} in ${manager.runtime.home}`);
    }
    throw error;
  }
}

function resolveThreadId(manager: ThreadManager, id: string | 'last'): string | null {
  if (id !== 'last') return id;
  const page = manager.list({ limit: 1, sortKey: 'updated_at' });
  return page.threads[0]?.id ?? null;
}

export { UsageError };
