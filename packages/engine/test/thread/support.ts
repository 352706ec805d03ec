/**
 * Shared helpers of the thread tests: reading a rollout file as raw JSONL lines, finding events,
 * checking that a recorded model request is valid (every tool call answered), and probing
 * whether a process group still exists, and an engine whose config has top-level extra keys.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngineEvent } from '@deputy/protocol';
import { functionCalls, functionOutputs, makeTempHome, startScriptedModelServer, type RecordedRequest } from '@deputy/test-support';
import { loadConfig } from '../../src/config/load-config.js';
import { EngineRuntime } from '../../src/thread/runtime.js';
import { ThreadManager } from '../../src/thread/thread-manager.js';
import { RecordingApprovals, type TestEngine, type TestEngineOptions } from '../helpers/engine.js';

/** One raw rollout line. */
export interface RawLine {
  type: string;
  payload: Record<string, unknown>;
}

/** Reads a rollout file as JSON lines, skipping a torn last line. */
export async function readRolloutLines(path: string): Promise<RawLine[]> {
  const text = await readFile(path, 'utf8');
  const lines: RawLine[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    try {
      lines.push(JSON.parse(raw) as RawLine);
    } catch {
      // a torn line: the reader under test must cope; here we just skip it
    }
  }
  return lines;
}

/** The events of one type, narrowed. */
export function ofType<T extends EngineEvent['type']>(events: EngineEvent[], type: T): Extract<EngineEvent, { type: T }>[] {
  return events.filter((e): e is Extract<EngineEvent, { type: T }> => e.type === type);
}

/** Call ids of tool calls in a request that have no output (should be empty for a valid request). */
export function unansweredCalls(request: RecordedRequest): string[] {
  const answered = new Set(functionOutputs(request).map((o) => o.call_id));
  return functionCalls(request)
    .map((c) => c.call_id)
    .filter((id) => !answered.has(id));
}

/** True while any process of group `pgid` exists (zombies included). */
export function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Kills a process group, ignoring errors (cleanup). */
export function killGroupQuietly(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** All the text of a Responses request's input items, joined (for "contains" checks). */
export function requestText(request: RecordedRequest): string {
  return JSON.stringify(request.body.input ?? request.body.messages ?? []);
}

/** Options of {@link startEngineWithTopLevel}. */
export interface TopLevelEngineOptions extends TestEngineOptions {
  /** TOML lines placed before any table, so top-level keys (`compact_prompt`, …) apply. */
  topLevelToml?: string;
}

/**
 * Like `startTestEngine`, but with config lines at the top level. (The shared helper appends its
 * `extraToml` after the `[model_providers.mock]` table, where top-level keys would land in that
 * table.)
 */
export async function startEngineWithTopLevel(options: TopLevelEngineOptions): Promise<TestEngine> {
  const server = options.server ?? (await startScriptedModelServer());
  const temp = options.temp ?? (await makeTempHome());
  const toml = [
    'model = "gpt-5.2-codex"',
    'model_provider = "mock"',
    `approval_policy = "${options.approvalPolicy ?? 'never'}"`,
    `sandbox_mode = "${options.sandbox ?? 'danger-full-access'}"`,
    options.topLevelToml ?? '',
    '[model_providers.mock]',
    'name = "Mock"',
    `base_url = "${server.url}"`,
    `wire_api = "${options.wire ?? 'responses'}"`,
    'request_max_retries = 2',
    'stream_max_retries = 2',
    'stream_idle_timeout_ms = 5000',
    options.extraToml ?? '',
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
