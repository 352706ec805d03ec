/**
 * The ACP agent: `@agentclientprotocol/sdk`'s AgentApp with Deputy's handlers (docs/acp.md).
 * Sessions are engine threads created with source `vscode`, so the app-server and the MCP
 * server list them too; `session/load` replays a thread with the same projection live turns
 * use. The wire is v1 only; leniency for older clients (a string protocol version, a missing
 * `mcpServers`) is applied to incoming messages before the SDK validates them.
 */
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import type { EditorFiles, ResolvedConfig, Thread, ThreadManager } from '@deputy/engine';
import type { Logger } from './log.js';
import { COMMANDS, parseCommand } from './commands.js';
import { clientFiles } from './client-files.js';
import { joinMcpServers } from './mcp-servers.js';
import { ModelChoices } from './models.js';
import { AcpApprovals } from './permissions.js';
import { promptInput } from './prompt-input.js';
import { replayUpdates } from './projection.js';
import { AcpSession, sessionTitle, type SessionEnv } from './sessions.js';

type Engine = typeof import('@deputy/engine');

/** Thread sources shown by `session/list` (the interactive ones). */
const LISTED_SOURCES = ['cli', 'vscode'];

/** The agent-side authentication method: a key from the environment or auth.json. */
const API_KEY_METHOD = 'openai-api-key';

/** What the agent runs on. */
export interface AgentDeps {
  engine: Engine;
  config: ResolvedConfig;
  log: Logger;
  /** Reads the configuration again (`authenticate`, `logout`: auth.json may have changed). */
  reloadConfig(): Promise<ResolvedConfig>;
  /** Opens the thread manager once, with the given approval port, editor files and config. */
  openManager(approvals: AcpApprovals, editorFiles: EditorFiles, config: ResolvedConfig): Promise<ThreadManager>;
}

/** A running ACP agent bound to one stream. */
export interface RunningAgent {
  closed: Promise<void>;
  /** Interrupts every running turn and closes the engine. */
  shutdown(): Promise<void>;
}

/** Rewrites incoming messages older or newer clients send so the stable SDK accepts them. */
export function lenientInput(): TransformStream<acp.AnyMessage, acp.AnyMessage> {
  return new TransformStream({
    transform(message, controller) {
      const m = message as { method?: string; params?: Record<string, unknown> };
      if (m.method === 'initialize' && m.params && typeof m.params.protocolVersion === 'string') {
        const major = Number.parseInt(m.params.protocolVersion, 10);
        m.params.protocolVersion = Number.isFinite(major) ? major : 1;
      }
      if ((m.method === 'session/new' || m.method === 'session/load') && m.params && m.params.mcpServers === undefined) m.params.mcpServers = [];
      controller.enqueue(message);
    },
  });
}

/** Starts the agent on `stream`. */
export function startAgent(stream: acp.Stream, deps: AgentDeps): RunningAgent {
  const { engine, log } = deps;
  let config = deps.config;
  let clientCapabilities: acp.ClientCapabilities = {};
  const sessions = new Map<string, AcpSession>();
  let connection: acp.AgentConnection | null = null;
  // The tool call is shown first (clients upsert it by id), then the permission is asked.
  const approvals = new AcpApprovals((threadId, params, signal) => {
    const session = sessions.get(threadId);
    const conn = connection;
    if (!session || !conn) return undefined;
    return session.announce({ sessionUpdate: 'tool_call', ...params.toolCall }).then((running) => {
      if (!running) return { outcome: { outcome: 'cancelled' } } as const;
      return conn.client.request(acp.methods.client.session.requestPermission, { sessionId: threadId, ...params }, { cancellationSignal: signal });
    });
  });
  const editorFiles = clientFiles(
    () => clientCapabilities,
    () => connection,
    (threadId) => sessions.get(threadId),
    () => config.raw.acp,
  );
  let managerPromise: Promise<ThreadManager> | null = null;
  const manager = (): Promise<ThreadManager> => {
    const opening = (managerPromise ??= deps.openManager(approvals, editorFiles, config));
    // A failed start (a missing key, say) is tried again by the next request.
    return opening.catch((error: unknown) => {
      if (managerPromise === opening) managerPromise = null;
      throw authError(error);
    });
  };
  /** The manager when it is open, without opening it. */
  const openedManager = async (): Promise<ThreadManager | null> => (managerPromise ? managerPromise.catch(() => null) : null);
  /** -32000 when the provider needs a key and none is usable (looked up on every call). */
  const requireCredentials = async (): Promise<void> => {
    const m = await openedManager();
    try {
      engine.resolveProvider(m ? m.runtime.config : config);
    } catch (error) {
      throw authError(error);
    }
  };
  const send = (params: acp.SessionNotification) => connection?.client.notify(acp.methods.client.session.update, params) ?? Promise.resolve();
  const view = () => ({ compaction: Boolean(clientCapabilities.session?.compaction) });

  const models = new ModelChoices(engine, () => config, log, () => {
    for (const session of sessions.values()) pushOptions(session);
  });
  const sessionEnv: SessionEnv = {
    config: () => config,
    models: () => models.list(),
    efforts: (model) => {
      const info = engine.describeModel(model, config.modelProviderId);
      return { efforts: info.reasoningEfforts, defaultEffort: info.defaultEffort };
    },
    sandboxPolicy: (preset, dirs) => sandboxFor(preset.sandboxMode, dirs),
  };
  const sandboxFor = (mode: ResolvedConfig['sandboxMode'], dirs: readonly string[]) =>
    engine.sandboxPolicyFromMode(mode, { ...config.sandboxWorkspaceWrite, writableRoots: [...config.sandboxWorkspaceWrite.writableRoots, ...dirs] });
  /** Sends `config_option_update` when the options changed since the client last heard of them. */
  const pushOptions = (session: AcpSession) => {
    const options = session.configOptions();
    const json = JSON.stringify(options);
    if (session.advertised === '' || json === session.advertised) return;
    session.advertised = json;
    void send({ sessionId: session.id, update: { sessionUpdate: 'config_option_update', configOptions: options } }).catch(() => undefined);
  };

  const sessionOf = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session) throw acp.RequestError.sessionNotFound(sessionId);
    return session;
  };
  const absolute = (cwd: string, field = 'cwd'): string => {
    if (!path.isAbsolute(cwd)) throw acp.RequestError.invalidParams({ [field]: cwd }, `${field} must be an absolute path, got \`${cwd}\``);
    return path.normalize(cwd);
  };
  const directories = (given: readonly string[] | null | undefined): string[] => [...new Set((given ?? []).map((d) => absolute(d, 'additionalDirectories')))];
  const open = async (sessionId: string, cwd: string, mcpServers: readonly acp.McpServer[] | undefined | null, dirs: string[]): Promise<AcpSession> => {
    await requireCredentials();
    const existing = sessions.get(sessionId);
    let thread: Thread;
    try {
      thread = await (await manager()).resume(sessionId, { cwd });
    } catch (error) {
      if (error instanceof engine.ThreadNotFoundError) throw acp.RequestError.sessionNotFound(sessionId);
      throw error;
    }
    useMcpServers(thread, mcpServers);
    if (existing && existing.thread === thread) {
      existing.additionalDirectories = dirs;
      return existing;
    }
    const session = new AcpSession(thread, sessionEnv, log);
    session.additionalDirectories = dirs;
    sessions.set(sessionId, session);
    watchMcp(thread);
    return session;
  };
  // MCP start-up failures are logged (ACP has no channel for them before a turn).
  const watchMcp = (thread: Thread) =>
    thread.events.subscribe((event) => {
      if (event.type === 'mcp.serverStatus' && event.status === 'failed') log.warn(`MCP server \`${event.server}\` of session ${thread.id} failed: ${event.error ?? 'unknown error'}`);
    });
  // The editor's MCP servers join the configured ones for this thread; start-up is not awaited.
  const useMcpServers = (thread: Thread, given: readonly acp.McpServer[] | undefined | null) => {
    if (!given || given.length === 0) return;
    const { servers, skipped } = joinMcpServers(config.mcpServerConfigs, given, thread.settings.cwd);
    for (const name of skipped) log.warn(`MCP server \`${name}\`: SSE servers are not supported; skipped`);
    void thread.reloadMcpServers(servers).catch((error: unknown) => log.warn(`MCP servers of session ${thread.id}: ${String(error)}`));
    log.debug(`MCP servers of session ${thread.id}: ${servers.map((s) => s.name).join(', ')}`);
  };
  // The commands go out once the session response has been written (the client knows the
  // session), and the options again if the model list changed meanwhile.
  const sessionState = (session: AcpSession) => {
    const configOptions = session.configOptions();
    session.advertised = JSON.stringify(configOptions);
    setTimeout(() => {
      void send({ sessionId: session.id, update: { sessionUpdate: 'available_commands_update', availableCommands: COMMANDS } }).catch(() => undefined);
      pushOptions(session);
    }, 100);
    return { modes: session.modeState(), configOptions };
  };

  const app = acp
    .agent({ name: 'deputy' })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      clientCapabilities = params.clientCapabilities ?? {};
      void models.refresh();
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentInfo: { name: 'deputy', title: 'Deputy', version: engine.DEPUTY_VERSION },
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: false },
          sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, additionalDirectories: {} },
          auth: { logout: {} },
          _meta: { deputy: { version: engine.DEPUTY_VERSION } },
        },
        authMethods: authMethods(clientCapabilities.auth?.terminal === true, config.home),
      };
    })
    .onRequest(acp.methods.agent.authenticate, async ({ params }) => {
      if (params.methodId !== API_KEY_METHOD) throw acp.RequestError.invalidParams({ methodId: params.methodId }, `unknown authentication method \`${params.methodId}\`; expected \`${API_KEY_METHOD}\``);
      // The environment and auth.json are read again; an open engine takes a newly stored key.
      config = await deps.reloadConfig();
      const m = await openedManager();
      const stored = config.sources.storedOpenaiKey;
      if (m && stored !== null && m.runtime.config.sources.storedOpenaiKey !== stored) await m.runtime.setStoredApiKey(stored);
      await requireCredentials();
      return {};
    })
    .onRequest(acp.methods.agent.logout, async () => {
      const m = await openedManager();
      if (m) await m.runtime.setStoredApiKey(null);
      else await engine.removeAuthFile(config.home);
      config = await deps.reloadConfig();
      return {};
    })
    .onRequest(acp.methods.agent.session.new, async ({ params }) => {
      const cwd = absolute(params.cwd);
      const dirs = directories(params.additionalDirectories);
      await requireCredentials();
      const thread = await (await manager())
        .start({
          cwd,
          model: config.model,
          reasoningEffort: config.reasoningEffort,
          reasoningSummary: config.reasoningSummary,
          approvalPolicy: config.approvalPolicy,
          sandboxPolicy: sandboxFor(config.sandboxMode, dirs),
          baseInstructions: config.baseInstructions,
          developerInstructions: config.developerInstructions,
          compactPrompt: config.compactPrompt,
          source: 'vscode',
        })
        .catch((error: unknown) => {
          throw authError(error);
        });
      watchMcp(thread);
      useMcpServers(thread, params.mcpServers);
      const session = new AcpSession(thread, sessionEnv, log);
      session.additionalDirectories = dirs;
      sessions.set(thread.id, session);
      return { sessionId: thread.id, ...sessionState(session) };
    })
    .onRequest(acp.methods.agent.session.load, async ({ params }) => {
      const session = await open(params.sessionId, absolute(params.cwd), params.mcpServers, directories(params.additionalDirectories));
      for (const update of replayUpdates(session.thread.turns, view())) await send({ sessionId: session.id, update });
      return sessionState(session);
    })
    .onRequest(acp.methods.agent.session.resume, async ({ params }) =>
      sessionState(await open(params.sessionId, absolute(params.cwd), params.mcpServers, directories(params.additionalDirectories))),
    )
    .onRequest(acp.methods.agent.session.list, async ({ params }) => {
      const cwd = params.cwd === undefined || params.cwd === null ? undefined : absolute(params.cwd);
      const page = (await manager()).list({ sources: LISTED_SOURCES, ...(cwd ? { cwd } : {}), cursor: params.cursor ?? null, limit: 25 });
      return {
        sessions: page.threads.map((t) => ({ sessionId: t.id, cwd: t.cwd, title: sessionTitle(t.name ?? t.preview), updatedAt: new Date(t.updatedAtMs).toISOString() })),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      };
    })
    .onRequest(acp.methods.agent.session.close, async ({ params }) => {
      const session = sessionOf(params.sessionId);
      session.cancel();
      await session.settled();
      sessions.delete(params.sessionId);
      await (await manager()).unload(params.sessionId);
      return {};
    })
    .onRequest(acp.methods.agent.session.delete, async ({ params }) => {
      const session = sessions.get(params.sessionId);
      if (session) {
        session.cancel();
        await session.settled();
        sessions.delete(params.sessionId);
      }
      const m = await manager();
      // Idempotent: an unknown or already archived thread is already gone from the list.
      if (m.index.get(params.sessionId)?.archived !== false) return {};
      try {
        await m.archive(params.sessionId);
      } catch (error) {
        if (!(error instanceof engine.ThreadNotFoundError)) throw error;
      }
      return {};
    })
    .onRequest(acp.methods.agent.session.setMode, ({ params }) => {
      const session = sessionOf(params.sessionId);
      session.setMode(params.modeId);
      // The `mode` config option follows the mode.
      pushOptions(session);
      return {};
    })
    .onRequest(acp.methods.agent.session.setConfigOption, ({ params }) => {
      const session = sessionOf(params.sessionId);
      if (typeof params.value !== 'string') throw acp.RequestError.invalidParams({ configId: params.configId }, `config option \`${params.configId}\` takes a string value`);
      const mode = session.modeId;
      session.setOption(params.configId, params.value);
      const configOptions = session.configOptions();
      session.advertised = JSON.stringify(configOptions);
      if (session.modeId !== mode) void send({ sessionId: session.id, update: { sessionUpdate: 'current_mode_update', currentModeId: session.modeId } }).catch(() => undefined);
      return { configOptions };
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
      const session = sessionOf(params.sessionId);
      const command = parseCommand(params.prompt);
      if (command?.kind === 'status' || command?.kind === 'usage') {
        const text = command.kind === 'usage' ? command.message : statusText(session);
        await send({ sessionId: session.id, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });
        return { stopReason: 'end_turn' };
      }
      await requireCredentials();
      if (command === null) return session.prompt(promptInput(params.prompt), send, view());
      if (command.kind === 'compact') return session.run(() => session.thread.startCompaction(), send, view());
      const target = command.target;
      return session.run(() => session.thread.startReview(target), send, view());
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    });

  connection = app.connect(stream);
  return {
    closed: connection.closed,
    async shutdown() {
      for (const session of sessions.values()) session.cancel();
      await Promise.allSettled([...sessions.values()].map((s) => s.settled()));
      if (managerPromise) {
        const m = await managerPromise.catch(() => null);
        if (m) await m.close().finally(() => m.runtime.close());
      }
    },
  };
}

/**
 * The authentication methods: the API key (from the environment or auth.json, checked by
 * `authenticate`), and, for clients that can run the agent in a terminal, `deputy acp --login`,
 * which reads a key and stores it in auth.json.
 */
function authMethods(terminal: boolean, home: string): acp.AuthMethod[] {
  const methods: acp.AuthMethod[] = [
    { id: API_KEY_METHOD, name: 'OpenAI API key', description: `Uses OPENAI_API_KEY (or the provider's env_key) or the key stored in ${path.join(home, 'auth.json')}` },
  ];
  if (terminal) methods.push({ type: 'terminal', id: 'deputy-login', name: 'Enter an API key in a terminal', description: 'Stores the key in auth.json in the Deputy home', args: ['--login'] });
  return methods;
}

/**
 * A provider without its API key is "authentication required" (-32000) with the engine's message,
 * which names the variable to set, and how to go on; other errors pass unchanged.
 */
function authError(error: unknown): unknown {
  if (error instanceof Error && (error as Error & { code?: string }).code === 'missing_api_key') {
    return acp.RequestError.authRequired({ code: 'missing_api_key' }, `${error.message} Then authenticate again (method \`${API_KEY_METHOD}\`).`);
  }
  return error;
}

/** The local answer of `/status`. */
function statusText(session: AcpSession): string {
  const { settings } = session.thread;
  const servers = session.thread.mcpServerStatuses();
  return [
    `Model: ${session.model}${session.reasoningEffort ? ` (reasoning ${session.reasoningEffort})` : ''}`,
    `Mode: ${session.modeId} (approval ${settings.approvalPolicy}, sandbox ${settings.sandboxPolicy.type})`,
    `Directory: ${settings.cwd}`,
    ...(session.additionalDirectories.length > 0 ? [`Additional directories: ${session.additionalDirectories.join(', ')}`] : []),
    `Session: ${session.id}`,
    `MCP servers: ${servers.length === 0 ? 'none' : servers.map((s) => `${s.name} (${s.status})`).join(', ')}`,
  ].join('\n');
}
