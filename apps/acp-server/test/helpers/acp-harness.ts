/**
 * Drives a real `deputy acp` child (the built CLI) with a client built on the SDK
 * (`acp.client()`): a scripted Responses-API model server, a temp Deputy home whose config.toml
 * points at it, every stdout line recorded and validated against the SDK's JSON Schema of agent
 * messages, and a recorder of session updates and permission requests. The child is killed by PID
 * in `finally`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import { makeTempHome, startScriptedModelServer, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { CLI_ENTRY, ensureCliBuilt } from '../../../cli/test/cli-process.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const requireFromProtocol = createRequire(join(here, '../../../../packages/protocol/package.json'));

interface Validator {
  (data: unknown): boolean;
  errors?: unknown[] | null;
}

/** The schema definition of each agent-side result, by the client request's method. */
const RESULT_DEFS: Record<string, string> = {
  initialize: 'InitializeResponse',
  authenticate: 'AuthenticateResponse',
  logout: 'LogoutResponse',
  'session/new': 'NewSessionResponse',
  'session/load': 'LoadSessionResponse',
  'session/list': 'ListSessionsResponse',
  'session/delete': 'DeleteSessionResponse',
  'session/resume': 'ResumeSessionResponse',
  'session/close': 'CloseSessionResponse',
  'session/set_mode': 'SetSessionModeResponse',
  'session/set_config_option': 'SetSessionConfigOptionResponse',
  'session/prompt': 'PromptResponse',
};
/** The schema definition of the params of each agent-sent request or notification. */
const PARAM_DEFS: Record<string, string> = {
  'session/update': 'SessionNotification',
  'session/request_permission': 'RequestPermissionRequest',
  'fs/read_text_file': 'ReadTextFileRequest',
  'fs/write_text_file': 'WriteTextFileRequest',
  '$/cancel_request': 'CancelRequestNotification',
};

/**
 * Checks one frame the agent sent against the SDK's JSON Schema: the JSON-RPC envelope, then the
 * params of its method or the result of the request it answers (`methodOf` maps a client request
 * id to its method). Returns the problem, or null when the frame is valid.
 */
export function agentFrameChecker(): (frame: unknown, methodOf: (id: unknown) => string | undefined) => string | null {
  const schema = JSON.parse(readFileSync(join(here, '../../node_modules/@agentclientprotocol/sdk/schema/v1/schema.json'), 'utf8')) as { anyOf: { title: string }[]; $defs: Record<string, unknown> };
  const Ajv2020 = (requireFromProtocol('ajv/dist/2020.js') as { default: new (options: Record<string, unknown>) => { compile(schema: unknown): Validator } }).default;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const envelope = ajv.compile({ ...schema, anyOf: schema.anyOf.filter((alt) => alt.title === 'Agent') });
  const byDef = new Map<string, Validator>();
  const validatorOf = (def: string) => {
    let v = byDef.get(def);
    if (!v) byDef.set(def, (v = ajv.compile({ $defs: schema.$defs, $ref: `#/$defs/${def}` })));
    return v;
  };
  return (frame, methodOf) => {
    if (!envelope(frame)) return `envelope: ${JSON.stringify(envelope.errors?.slice(0, 3))}`;
    const m = frame as { id?: unknown; method?: string; params?: unknown; result?: unknown; error?: unknown };
    let def: string | undefined;
    let payload: unknown;
    if (m.method !== undefined) {
      def = PARAM_DEFS[m.method];
      payload = m.params;
      if (!def) return `unexpected method ${m.method}`;
    } else if (m.result !== undefined) {
      const method = methodOf(m.id);
      def = method === undefined ? undefined : RESULT_DEFS[method];
      payload = m.result;
      if (!def) return `result for an unknown request ${String(m.id)} (${method})`;
    } else return null;
    const v = validatorOf(def);
    return v(payload) ? null : `${def}: ${JSON.stringify(v.errors?.slice(0, 3))}`;
  };
}

/** Scripted model + home + config. */
export interface Env {
  model: ScriptedModelServer;
  temp: TempHome;
  close(): Promise<void>;
}

/** Starts the model server and writes a config.toml using it. */
export async function startEnv(topToml = 'approval_policy = "never"\nsandbox_mode = "danger-full-access"'): Promise<Env> {
  await ensureCliBuilt();
  const model = await startScriptedModelServer();
  const temp = await makeTempHome('deputy-acp-');
  await writeFile(
    join(temp.home, 'config.toml'),
    [
      'model = "gpt-5.2-codex"',
      /^model_provider\s*=/m.test(topToml) ? '' : 'model_provider = "mock"',
      topToml,
      '[model_providers.mock]',
      'name = "Mock"',
      `base_url = "${model.url}"`,
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      'stream_idle_timeout_ms = 20000',
    ].join('\n'),
  );
  return {
    model,
    temp,
    close: async () => {
      await model.close();
      await temp.cleanup();
    },
  };
}

/** The model requests of turns (POSTs; the agent also lists the provider's models with a GET). */
export function turnRequests(env: Env): ScriptedModelServer['requests'] {
  return env.model.requests.filter((r) => r.method === 'POST');
}

/** What a permission responder answers. */
export type Responder = (request: acp.RequestPermissionRequest, signal: AbortSignal) => Promise<acp.RequestPermissionResponse> | acp.RequestPermissionResponse;

/** Everything the client saw. */
export class Recorder {
  readonly updates: acp.SessionNotification[] = [];
  readonly permissions: acp.RequestPermissionRequest[] = [];
  /** `fs/read_text_file` and `fs/write_text_file` requests, in arrival order. */
  readonly fsCalls: ({ method: 'read'; params: acp.ReadTextFileRequest } | { method: 'write'; params: acp.WriteTextFileRequest })[] = [];
  /** The editor's unsaved buffers by absolute path: reads see them instead of the disk. */
  readonly buffers = new Map<string, string>();
  /** When set, `fs/write_text_file` fails with this message (the editor refuses). */
  refuseWrites: string | null = null;
  /** When true, `fs/write_text_file` only fills the buffer (an editor that does not save). */
  keepUnsaved = false;
  /** Every session/update and prompt response, in arrival order (for "nothing after the response"). */
  readonly timeline: ({ kind: 'update'; n: acp.SessionNotification } | { kind: 'response'; sessionId: string })[] = [];
  responder: Responder = () => ({ outcome: { outcome: 'selected', optionId: 'approved' } });

  of(sessionId: string): acp.SessionUpdate[] {
    return this.updates.filter((u) => u.sessionId === sessionId).map((u) => u.update);
  }
}

/** A connected client. */
export interface Client {
  agent: acp.ClientContext;
  init: acp.InitializeResponse;
  rec: Recorder;
  /** Every stdout line. */
  lines: string[];
  /** Stdout lines that are not valid agent frames, with the reason. */
  invalid: string[];
  child: ChildProcess;
  stderr(): string;
  /** Sends a prompt and records its response in the timeline. */
  prompt(sessionId: string, prompt: acp.ContentBlock[] | string): Promise<acp.PromptResponse>;
}

/** How a client is started. */
export interface AcpOptions {
  /** Extra arguments of `deputy acp`. */
  args?: string[];
  /** The client capabilities sent in `initialize` (default: no fs). */
  clientCapabilities?: acp.ClientCapabilities;
  /** Extra environment variables of the child. */
  env?: Record<string, string>;
}

/** Spawns `deputy acp`, connects, initialises, runs `body`, then closes stdin and reaps the child. */
export async function withAcp<T>(env: Env, body: (client: Client) => Promise<T>, options: AcpOptions = {}): Promise<T> {
  const child = spawn(process.execPath, [CLI_ENTRY, 'acp', ...(options.args ?? [])], {
    cwd: env.temp.cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: env.temp.home, DEPUTY_HOME: env.temp.home, DEPUTY_LOG: 'warn', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const check = agentFrameChecker();
  const sentMethods = new Map<unknown, string>();
  const lines: string[] = [];
  const invalid: string[] = [];
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    partial += chunk.toString('utf8');
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      let frame: unknown;
      try {
        frame = JSON.parse(line);
      } catch {
        invalid.push(`not JSON: ${line}`);
        continue;
      }
      const problem = check(frame, (id) => sentMethods.get(id));
      if (problem) invalid.push(`${line}\n  ${problem}`);
    }
  });
  const rec = new Recorder();
  const app = acp
    .client({ name: 'deputy-e2e' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      rec.updates.push(params);
      rec.timeline.push({ kind: 'update', n: params });
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) => {
      rec.permissions.push(params);
      return rec.responder(params, signal);
    })
    // The editor: reads see unsaved buffers, writes go to the disk (and replace the buffer).
    .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
      rec.fsCalls.push({ method: 'read', params });
      return { content: rec.buffers.get(params.path) ?? (await readFile(params.path, 'utf8')) };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
      rec.fsCalls.push({ method: 'write', params });
      if (rec.refuseWrites !== null) throw acp.RequestError.internalError(undefined, rec.refuseWrites);
      if (rec.keepUnsaved) rec.buffers.set(params.path, params.content);
      else {
        rec.buffers.delete(params.path);
        await writeFile(params.path, params.content);
      }
      return {};
    })
    .onRequest(acp.methods.client.terminal.create, () => {
      throw new Error('terminal/create must not be called');
    });
  const wire = acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
  // Remembers the method of every request the client sends, to validate the agent's result.
  const outgoing = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    transform(message, controller) {
      const m = message as { id?: unknown; method?: string };
      if (m.id !== undefined && m.method !== undefined) sentMethods.set(m.id, m.method);
      controller.enqueue(message);
    },
  });
  void outgoing.readable.pipeTo(wire.writable).catch(() => undefined);
  const stream: acp.Stream = { writable: outgoing.writable, readable: wire.readable };
  try {
    return await app.connectWith(stream, async (agent) => {
      const init = await agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: options.clientCapabilities ?? { fs: { readTextFile: false, writeTextFile: false } }, clientInfo: { name: 'deputy-e2e', version: '0' } });
      const prompt = async (sessionId: string, p: acp.ContentBlock[] | string) => {
        const blocks = typeof p === 'string' ? [{ type: 'text' as const, text: p }] : p;
        try {
          return await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: blocks });
        } finally {
          rec.timeline.push({ kind: 'response', sessionId });
        }
      };
      return body({ agent, init, rec, lines, invalid, child, stderr: () => stderr, prompt });
    });
  } finally {
    child.stdin.end();
    await exited(child, 5000).catch(() => undefined);
    if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
  }
}

/** Resolves with the exit code when the child exits within `ms`. */
export function exited(child: ChildProcess, ms: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`deputy acp did not exit within ${ms} ms`)), ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/**
 * A transcript: consecutive chunks of one message joined, tool calls folded with their updates
 * (last value of each field wins), in first-appearance order. Live and replayed sessions must
 * produce the same one.
 */
export function transcript(updates: acp.SessionUpdate[]): Record<string, unknown>[] {
  const entries: Record<string, unknown>[] = [];
  const tools = new Map<string, Record<string, unknown>>();
  for (const u of updates) {
    if (u.sessionUpdate === 'agent_message_chunk' || u.sessionUpdate === 'agent_thought_chunk' || u.sessionUpdate === 'user_message_chunk') {
      const t = u.content.type === 'text' ? u.content.text : `[${u.content.type}]`;
      const last = entries.at(-1);
      if (last && last.kind === u.sessionUpdate && last.messageId === (u.messageId ?? null)) last.text = `${String(last.text)}${t}`;
      else entries.push({ kind: u.sessionUpdate, messageId: u.messageId ?? null, text: t });
    } else if (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') {
      const { sessionUpdate: _s, ...fields } = u;
      const existing = tools.get(u.toolCallId);
      if (existing) Object.assign(existing, fields);
      else {
        const entry = { kind: 'tool', ...fields };
        tools.set(u.toolCallId, entry);
        entries.push(entry);
      }
    }
  }
  return entries;
}
