/**
 * The ACP agent: `@agentclientprotocol/sdk`'s AgentApp with Deputy's handlers (docs/acp.md).
 * Sessions are engine threads created with source `vscode`, so the app-server and the MCP
 * server list them too; `session/load` replays a thread with the same projection live turns
 * use. The wire is v1 only; leniency for older clients (a string protocol version, a missing
 * `mcpServers`) is applied to incoming messages before the SDK validates them.
 */
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import type { ResolvedConfig, Thread, ThreadManager } from '@deputy/engine';
import type { Logger } from './log.js';
import { COMMANDS, parseCommand } from './commands.js';
import { joinMcpServers } from './mcp-servers.js';
import { AcpApprovals } from './permissions.js';
import { promptInput } from './prompt-input.js';
import { replayUpdates } from './projection.js';
import { AcpSession, type ModePreset } from './sessions.js';

type Engine = typeof import('@deputy/engine');

/** Thread sources shown by `session/list` (the interactive ones). */
const LISTED_SOURCES = ['cli', 'vscode'];

/** What the agent runs on. */
export interface AgentDeps {
  engine: Engine;
  config: ResolvedConfig;
  log: Logger;
  /** Opens the thread manager once, with the given approval port. */
  openManager(approvals: AcpApprovals): Promise<ThreadManager>;
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
  const { engine, config, log } = deps;
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
  let managerPromise: Promise<ThreadManager> | null = null;
  const manager = (): Promise<ThreadManager> => {
    const opening = (managerPromise ??= deps.openManager(approvals));
    // A failed start (a missing key, say) is tried again by the next request.
    return opening.catch((error: unknown) => {
      if (managerPromise === opening) managerPromise = null;
      throw authError(error);
    });
  };
  const sandboxPolicy = (preset: ModePreset) => engine.sandboxPolicyFromMode(preset.sandboxMode, config.sandboxWorkspaceWrite);
  const send = (params: acp.SessionNotification) => connection?.client.notify(acp.methods.client.session.update, params) ?? Promise.resolve();

  const sessionOf = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session) throw acp.RequestError.sessionNotFound(sessionId);
    return session;
  };
  const absolute = (cwd: string): string => {
    if (!path.isAbsolute(cwd)) throw acp.RequestError.invalidParams({ cwd }, `cwd must be an absolute path, got \`${cwd}\``);
    return path.normalize(cwd);
  };
  const open = async (sessionId: string, cwd: string, mcpServers: readonly acp.McpServer[] | undefined | null): Promise<AcpSession> => {
    const existing = sessions.get(sessionId);
    let thread: Thread;
    try {
      thread = await (await manager()).resume(sessionId, { cwd });
    } catch (error) {
      if (error instanceof engine.ThreadNotFoundError) throw acp.RequestError.sessionNotFound(sessionId);
      throw error;
    }
    useMcpServers(thread, mcpServers);
    if (existing && existing.thread === thread) return existing;
    const session = new AcpSession(thread, config, log);
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
  // The commands go out once the session response has been written (the client knows the session).
  const sessionState = (session: AcpSession) => {
    setTimeout(() => void send({ sessionId: session.id, update: { sessionUpdate: 'available_commands_update', availableCommands: COMMANDS } }).catch(() => undefined), 100);
    return { modes: session.modeState(), configOptions: session.configOptions() };
  };

  const app = acp
    .agent({ name: 'deputy' })
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentInfo: { name: 'deputy', title: 'Deputy', version: engine.DEPUTY_VERSION },
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, audio: false, embeddedContext: true },
        mcpCapabilities: { http: true, sse: false },
        sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} },
        _meta: { deputy: { version: engine.DEPUTY_VERSION } },
      },
      authMethods: [],
    }))
    .onRequest(acp.methods.agent.authenticate, () => ({}))
    .onRequest(acp.methods.agent.session.new, async ({ params }) => {
      const cwd = absolute(params.cwd);
      const thread = await (
        await manager()
      )
        .start({
        cwd,
        model: config.model,
        reasoningEffort: config.reasoningEffort,
        reasoningSummary: config.reasoningSummary,
        approvalPolicy: config.approvalPolicy,
        sandboxPolicy: engine.sandboxPolicyFromMode(config.sandboxMode, config.sandboxWorkspaceWrite),
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
      const session = new AcpSession(thread, config, log);
      sessions.set(thread.id, session);
      return { sessionId: thread.id, ...sessionState(session) };
    })
    .onRequest(acp.methods.agent.session.load, async ({ params }) => {
      const session = await open(params.sessionId, absolute(params.cwd), params.mcpServers);
      for (const update of replayUpdates(session.thread.turns)) await send({ sessionId: session.id, update });
      return sessionState(session);
    })
    .onRequest(acp.methods.agent.session.resume, async ({ params }) => sessionState(await open(params.sessionId, absolute(params.cwd), params.mcpServers)))
    .onRequest(acp.methods.agent.session.list, async ({ params }) => {
      const cwd = params.cwd === undefined || params.cwd === null ? undefined : absolute(params.cwd);
      const page = (await manager()).list({ sources: LISTED_SOURCES, ...(cwd ? { cwd } : {}), cursor: params.cursor ?? null, limit: 25 });
      return {
        sessions: page.threads.map((t) => ({ sessionId: t.id, cwd: t.cwd, title: oneLine(t.name ?? t.preview), updatedAt: new Date(t.updatedAtMs).toISOString() })),
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
      sessionOf(params.sessionId).setMode(params.modeId);
      return {};
    })
    .onRequest(acp.methods.agent.session.setConfigOption, ({ params }) => {
      const session = sessionOf(params.sessionId);
      if (params.configId === 'mode' && typeof params.value === 'string') session.setMode(params.value);
      else if (params.configId === 'model' && params.value === session.thread.settings.model) {
        // The only model offered is the current one.
      } else throw acp.RequestError.invalidParams({ configId: params.configId }, `unknown config option \`${params.configId}\` or value`);
      return { configOptions: session.configOptions() };
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
      const session = sessionOf(params.sessionId);
      const command = parseCommand(params.prompt);
      if (command === null) return session.prompt(promptInput(params.prompt), send, sandboxPolicy);
      if (command.kind === 'compact') return session.run(() => session.thread.startCompaction(), send);
      if (command.kind === 'review') {
        const target = command.target;
        return session.run(() => session.thread.startReview(target), send);
      }
      const text = command.kind === 'usage' ? command.message : statusText(session);
      await send({ sessionId: session.id, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });
      return { stopReason: 'end_turn' };
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
 * A provider without its API key is "authentication required" (-32000) with the engine's message,
 * which names the variable to set; other errors pass unchanged.
 */
function authError(error: unknown): unknown {
  if (error instanceof Error && (error as Error & { code?: string }).code === 'missing_api_key') return acp.RequestError.authRequired({ code: 'missing_api_key' }, error.message);
  return error;
}

/** The local answer of `/status`. */
function statusText(session: AcpSession): string {
  const { settings } = session.thread;
  const servers = session.thread.mcpServerStatuses();
  return [
    `Model: ${settings.model}${settings.reasoningEffort ? ` (reasoning ${settings.reasoningEffort})` : ''}`,
    `Mode: ${session.modeId} (approval ${settings.approvalPolicy}, sandbox ${settings.sandboxPolicy.type})`,
    `Directory: ${settings.cwd}`,
    `Session: ${session.id}`,
    `MCP servers: ${servers.length === 0 ? 'none' : servers.map((s) => `${s.name} (${s.status})`).join(', ')}`,
  ].join('\n');
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
