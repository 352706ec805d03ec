/**
 * Builds one SDK server instance (per stdio connection, per 2025-era HTTP session, per 2026-era
 * HTTP request) over the shared McpApp: `tools/list`, `tools/call` dispatched to the tool
 * table, `-32601` with `data.method` for everything else (resources, prompts, logging, unknown
 * methods are answered, never dropped). Translates the SDK's request context into the
 * RequestBinding a call reports to. Negotiation and framing are the SDK's.
 */
import { createRequire } from 'node:module';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  Server,
  type CallToolResult,
  type ClientCapabilities,
  type McpRequestContext,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import { z } from 'zod';
import { errorResult, type McpApp, type RoundState, type ToolEntry, type ToolRequest } from './app.js';
import type { ElicitOutcome, RequestBinding } from './turn-call.js';

/** The version this server reports (its package version). */
export const SERVER_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

/** Any JSON object: the elicitation answer is read leniently (docs/mcp-server.md "Approvals"). */
const AnyResultSchema = z.looseObject({});

const codecs = new WeakMap<McpApp, RequestStateCodec<RoundState>>();

/**
 * The validator the bundles' SDK shims default to (sdk-shims.ts), never used by Deputy's own
 * calls; stateless, so one serves every server instance (one per 2026-era HTTP request).
 */
const JSON_SCHEMA_VALIDATOR = new CfWorkerJsonSchemaValidator();

/**
 * The tool definitions and handlers, imported on the first `tools/list` or `tools/call`: they
 * bring zod schemas and the turn machinery that answering `initialize` does not need.
 */
const loadTools = () => import('./tools/table.js');

/** Creates a server instance for one connection (or one 2026-era HTTP request). */
export function buildServer(app: McpApp, ctx: Pick<McpRequestContext, 'era'>): Server {
  const server = new Server(
    { name: 'deputy-mcp-server', title: 'Deputy', version: SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: true } },
      jsonSchemaValidator: JSON_SCHEMA_VALIDATOR,
      requestState: { verify: (state, context) => codecOf(app).verify(state, context) },
      inputRequired: { maxRounds: 64 },
    },
  );
  let tools: Map<string, ToolEntry> | null = null;
  server.setRequestHandler('tools/list', async () => {
    const [{ REFERENCE_TOOLS, SESSION_TOOLS }, settings] = await Promise.all([loadTools(), app.settings()]);
    return { tools: [...REFERENCE_TOOLS, ...(settings.session_tools ? SESSION_TOOLS : [])] };
  });
  server.setRequestHandler('tools/call', async (request, context) => {
    const toolRequest = toolRequestOf(server, context, ctx.era, app);
    if (toolRequest.roundState) return app.resume(toolRequest);
    const { toolTable, isSessionTool } = await loadTools();
    tools ??= toolTable(app);
    const name = request.params.name;
    const entry = tools.get(name);
    const enabled = entry && (!isSessionTool(name) || (await app.settings()).session_tools);
    if (!entry || !enabled) return errorResult(`Unknown tool '${name}'`) satisfies CallToolResult;
    return entry.handle(request.params.arguments as Record<string, unknown> | undefined, toolRequest);
  });
  server.fallbackRequestHandler = async (request) => {
    throw new ProtocolError(-32601, `method not found: ${request.method}`, { method: request.method });
  };
  server.onerror = (error) => app.log.debug(`protocol: ${error.message}`);
  return server;
}

function codecOf(app: McpApp): RequestStateCodec<RoundState> {
  let codec = codecs.get(app);
  if (!codec) {
    // Rounds of a paused call must come back to this process; a per-process key is enough. Made
    // on the first mint or verify, so the crypto module does not load before `initialize`.
    codec = createRequestStateCodec<RoundState>({ key: crypto.getRandomValues(new Uint8Array(32)), ttlSeconds: 86_400 });
    codecs.set(app, codec);
  }
  return codec;
}

function toolRequestOf(server: Server, ctx: ServerContext, era: 'legacy' | 'modern', app: McpApp): ToolRequest {
  return {
    binding: bindingOf(server, ctx, era),
    roundState: ctx.mcpReq.requestState<RoundState>(),
    inputResponses: ctx.mcpReq.inputResponses,
    mintState: (state) => codecOf(app).mint(state),
    askApproval: (message, requestState) =>
      inputRequired({
        inputRequests: { approval: inputRequired.elicit({ message, requestedSchema: { type: 'object', properties: {} } }) },
        requestState,
      }),
  };
}

function bindingOf(server: Server, ctx: ServerContext, era: 'legacy' | 'modern'): RequestBinding {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = (era === 'modern' ? envelope?.[CLIENT_CAPABILITIES_META_KEY] : server.getClientCapabilities()) as ClientCapabilities | undefined;
  return {
    requestId: ctx.mcpReq.id,
    era,
    signal: ctx.mcpReq.signal,
    progressToken: ctx.mcpReq._meta?.progressToken,
    canElicit: capabilities?.elicitation !== undefined,
    notify: (method, params) => ctx.mcpReq.notify({ method, params }),
    async elicit(params, { signal, timeoutMs }): Promise<ElicitOutcome> {
      try {
        const result = await ctx.mcpReq.send({ method: 'elicitation/create', params }, AnyResultSchema, { signal, timeout: timeoutMs });
        return { kind: 'answered', result };
      } catch (error) {
        if (signal.aborted) return { kind: 'aborted' };
        if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) return { kind: 'timeout' };
        return { kind: 'error', message: (error as Error).message };
      }
    },
  };
}
