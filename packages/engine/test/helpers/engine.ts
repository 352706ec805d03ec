/**
 * Test harness: a real engine (config from a temp home, real rollouts and index) talking to the
 * real scripted model server through the real openai SDK.
 */
import { onTestFinished } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { ApprovalPolicy, EngineEvent, ReviewDecision, SandboxMode } from '@deputy/protocol';
import { makeTempHome, startScriptedModelServer, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import type { ApprovalPort } from '../../src/approvals/approval-port.js';
import { loadConfig } from '../../src/config/load-config.js';
import { EngineRuntime } from '../../src/thread/runtime.js';
import { ThreadManager } from '../../src/thread/thread-manager.js';
import type { Thread } from '../../src/thread/thread.js';

/** The shared bounded poll, re-exported for the tests that import it from here. */
export { waitFor } from '@deputy/test-support';

/** A running test engine. */
export interface TestEngine {
  server: ScriptedModelServer;
  temp: TempHome;
  manager: ThreadManager;
  runtime: EngineRuntime;
  approvals: RecordingApprovals;
  close(): Promise<void>;
}

/**
 * An ApprovalPort that records requests and answers from a queue (default `approved`). A test
 * can set `beforeAnswer` to act while the engine waits for the answer (e.g. change the disk
 * between the approval request and the write).
 */
export class RecordingApprovals implements ApprovalPort {
  readonly requests: { kind: string; request: unknown }[] = [];
  readonly answers: ReviewDecision[] = [];
  fallback: ReviewDecision = 'approved';
  beforeAnswer: ((kind: 'exec' | 'patch', request: unknown) => void | Promise<void>) | null = null;
  async requestExec(request: Parameters<ApprovalPort['requestExec']>[0]): Promise<ReviewDecision> {
    this.requests.push({ kind: 'exec', request });
    await this.beforeAnswer?.('exec', request);
    return this.answers.shift() ?? this.fallback;
  }
  async requestPatch(request: Parameters<ApprovalPort['requestPatch']>[0]): Promise<ReviewDecision> {
    this.requests.push({ kind: 'patch', request });
    await this.beforeAnswer?.('patch', request);
    return this.answers.shift() ?? this.fallback;
  }
}

/** Options of the test engine. */
export interface TestEngineOptions {
  approvalPolicy?: ApprovalPolicy;
  sandbox?: SandboxMode;
  wire?: 'responses' | 'chat';
  extraToml?: string;
  server?: ScriptedModelServer;
  temp?: TempHome;
}

/** Starts a scripted server, writes a config pointing at it, and opens a ThreadManager. */
export async function startTestEngine(options: TestEngineOptions = {}): Promise<TestEngine> {
  const server = options.server ?? (await startScriptedModelServer());
  const temp = options.temp ?? (await makeTempHome());
  const toml = [
    'model = "gpt-5.2-codex"',
    'model_provider = "mock"',
    `approval_policy = "${options.approvalPolicy ?? 'never'}"`,
    `sandbox_mode = "${options.sandbox ?? 'danger-full-access'}"`,
    options.extraToml ?? '',
    '[model_providers.mock]',
    'name = "Mock"',
    `base_url = "${server.url}"`,
    `wire_api = "${options.wire ?? 'responses'}"`,
    'request_max_retries = 2',
    'stream_max_retries = 2',
    'stream_idle_timeout_ms = 5000',
  ].join('\n');
  await writeFile(join(temp.home, 'config.toml'), toml);
  const config = await loadConfig({ home: temp.home, cwd: temp.cwd, overrides: [], env: {}, profile: undefined });
  const approvals = new RecordingApprovals();
  const runtime = await EngineRuntime.create({ config, approvals, source: 'exec' });
  const manager = await ThreadManager.open(runtime);
  return {
    server,
    temp,
    manager,
    runtime,
    approvals,
    close: async () => {
      await manager.close();
      if (!options.server) await server.close();
      if (!options.temp) await temp.cleanup();
    },
  };
}

/**
 * Writes `toml` as the home's config.toml (and `storedKey`, if given, as auth.json's OpenAI key),
 * then opens a runtime and a thread manager on it with `env` as the environment.
 */
export async function openOnConfig(
  temp: TempHome,
  toml: readonly string[],
  options: { env?: NodeJS.ProcessEnv; storedKey?: string } = {},
): Promise<{ runtime: EngineRuntime; manager: ThreadManager }> {
  await writeFile(join(temp.home, 'config.toml'), toml.join('\n'));
  if (options.storedKey !== undefined) await writeFile(join(temp.home, 'auth.json'), JSON.stringify({ OPENAI_API_KEY: options.storedKey }));
  const config = await loadConfig({ home: temp.home, cwd: temp.cwd, env: options.env ?? {} });
  const runtime = await EngineRuntime.create({ config, approvals: new RecordingApprovals(), source: 'exec' });
  return { runtime, manager: await ThreadManager.open(runtime) };
}

/** Collects a thread's events from now on. */
export function collect(thread: Thread): EngineEvent[] {
  const events: EngineEvent[] = [];
  thread.events.subscribe((e) => events.push(e));
  return events;
}


/**
 * One scripted server and one home shared by several engines in a test (a "restart" opens a new
 * engine on the same home). Everything is closed when the test finishes, newest first.
 */
export async function sharedHome(): Promise<{ server: ScriptedModelServer; temp: TempHome; open: () => Promise<TestEngine> }> {
  const cleanups: (() => Promise<void>)[] = [];
  onTestFinished(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const server = await startScriptedModelServer();
  const temp = await makeTempHome();
  cleanups.push(() => server.close(), () => temp.cleanup());
  const open = async () => {
    const engine = await startTestEngine({ server, temp });
    cleanups.push(() => engine.close());
    return engine;
  };
  return { server, temp, open };
}

/** A port on 127.0.0.1 that nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
