/**
 * ScriptedModelServer: a real `node:http` server on 127.0.0.1 that plays an OpenAI-compatible
 * model from a script. It answers `POST /v1/responses` (Responses API stream), `POST
 * /v1/chat/completions` (Chat Completions stream) and `GET /v1/models`; each POST consumes one
 * queued `Step`, else asks the handler, else answers a fixed text. It records every request.
 * Runtime code (the engine's offline `demo` provider runs on it), so it must not import a test framework.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { completedChatFrames, faultChatFrames, type ChatFrame } from './chat-frames.js';
import { completedResponseFrames, faultResponseFrames, type SseFrame } from './responses-frames.js';
import type { RecordedRequest, RequestBody } from './request-matchers.js';
import { NO_RESPONSE_QUEUED_TEXT, isFaultStep, text, type OutputStep, type ScriptedOutput, type Step } from './scripted-steps.js';

/** Answers a request when the queue is empty. */
export type StepHandler = (request: RecordedRequest) => Step | Promise<Step>;

/** A model entry of `GET /v1/models`. */
export interface ScriptedModelEntry {
  id: string;
  owned_by?: string;
}

/** Options of `startScriptedModelServer`. */
export interface ScriptedModelServerOptions {
  /** Steps queued before the first request. */
  steps?: Step[];
  /** Handler used once the queue is empty. */
  handler?: StepHandler;
  /** What `GET /v1/models` lists (default: a few OpenAI model ids). */
  models?: Array<string | ScriptedModelEntry>;
  /**
   * Whether `requests` keeps every request (default true, for tests). A server that runs for long
   * (the demo provider, the soak bench) passes false: each request carries the thread's whole
   * history, so keeping them all grows without bound. `requests` then stays empty.
   */
  recordRequests?: boolean;
}

/** A running scripted model server. */
export interface ScriptedModelServer {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:40123/v1`. */
  readonly url: string;
  readonly port: number;
  /** Every request received, in arrival order (live array). */
  readonly requests: RecordedRequest[];
  /** Queues steps; each POST consumes the first one. */
  enqueue(...steps: Step[]): void;
  /** Sets (or clears, with null) the handler used when the queue is empty. */
  setHandler(fn: StepHandler | null): void;
  /** Replaces the `GET /v1/models` list. */
  setModels(models: Array<string | ScriptedModelEntry>): void;
  /** Steps still queued. */
  pendingSteps(): number;
  /** Resolves once at least `n` requests arrived; rejects after `timeoutMs`. */
  waitForRequests(n: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  /** Cuts every open connection (stalled streams included) and stops listening. */
  close(): Promise<void>;
}

const DEFAULT_MODELS = ['gpt-5.2-codex', 'gpt-5.2', 'gpt-4.1'];

/** OpenAI's error body for each status a script may ask for. */
function defaultErrorBody(status: number): Record<string, unknown> {
  const by: Record<number, [string, string, string | null]> = {
    400: ['Invalid request (scripted).', 'invalid_request_error', null],
    401: ['Incorrect API key provided (scripted).', 'invalid_request_error', 'invalid_api_key'],
    403: ['You are not allowed to use this model (scripted).', 'invalid_request_error', null],
    404: ['The model does not exist (scripted).', 'invalid_request_error', 'model_not_found'],
    429: ['Rate limit reached for requests (scripted). Please try again shortly.', 'requests', 'rate_limit_exceeded'],
  };
  const [message, type, code] = by[status] ?? ['The server had an error while processing your request (scripted).', 'server_error', null];
  return { error: { message, type, param: null, code } };
}

/** The 400 body OpenAI sends when the input exceeds the context window. */
const CONTEXT_TOO_LONG_BODY = {
  error: {
    message: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
    type: 'invalid_request_error',
    param: 'input',
    code: 'context_length_exceeded',
  },
};

function classify(method: string, path: string): RecordedRequest['wire'] {
  const p = path.replace(/\/+$/, '');
  if (method === 'POST' && (p === '/v1/responses' || p === '/responses')) return 'responses';
  if (method === 'POST' && (p === '/v1/chat/completions' || p === '/chat/completions')) return 'chat';
  if (method === 'GET' && (p === '/v1/models' || p === '/models')) return 'models';
  return 'other';
}

async function readBody(req: IncomingMessage): Promise<RequestBody | null> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (raw.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as RequestBody) : null;
  } catch {
    return null;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Writes one chunk and waits until it is flushed to the socket (or the socket is gone). */
function writeFlushed(res: ServerResponse, data: string): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve();
    const onClose = (): void => resolve();
    res.once('close', onClose);
    res.write(data, () => {
      res.off('close', onClose);
      resolve();
    });
  });
}

function sleep(ms: number, closed: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (closed.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      closed.removeEventListener('abort', done);
      resolve();
    }
    closed.addEventListener('abort', done, { once: true });
  });
}

function renderSse(frame: SseFrame): string {
  return `${frame.event === null ? '' : `event: ${frame.event}\n`}data: ${JSON.stringify(frame.data)}\n\n`;
}

function renderChat(frame: ChatFrame): string {
  return `data: ${frame === '[DONE]' ? '[DONE]' : JSON.stringify(frame)}\n\n`;
}

/** The default outputs streamed before a drop or stall when the step names none. */
function faultOutputs(output: ScriptedOutput[] | undefined): ScriptedOutput[] {
  return output ?? [text('This partial answer from the scripted model will be cut off before it completes.')];
}

class ScriptedServerState implements ScriptedModelServer {
  readonly requests: RecordedRequest[] = [];
  url = '';
  port = 0;
  private readonly queue: Step[];
  private handler: StepHandler | null;
  private models: ScriptedModelEntry[];
  private readonly sockets = new Set<Socket>();
  private readonly waiters = new Set<() => void>();
  private responseCount = 0;
  private readonly recordRequests: boolean;

  constructor(
    private readonly server: Server,
    options: ScriptedModelServerOptions,
  ) {
    this.queue = [...(options.steps ?? [])];
    this.recordRequests = options.recordRequests ?? true;
    this.handler = options.handler ?? null;
    this.models = [];
    this.setModels(options.models ?? DEFAULT_MODELS);
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('request', (req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { error: { message: `scripted model server: ${String(error)}`, type: 'server_error' } });
        else res.destroy();
      });
    });
  }

  enqueue(...steps: Step[]): void {
    this.queue.push(...steps);
  }

  setHandler(fn: StepHandler | null): void {
    this.handler = fn;
  }

  setModels(models: Array<string | ScriptedModelEntry>): void {
    this.models = models.map((m) => (typeof m === 'string' ? { id: m } : m));
  }

  pendingSteps(): number {
    return this.queue.length;
  }

  waitForRequests(n: number, timeoutMs = 5_000): Promise<RecordedRequest[]> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (this.requests.length < n) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(this.requests.slice());
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`scripted model server: expected ${n} requests within ${timeoutMs} ms, got ${this.requests.length}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const body = await readBody(req);
    const recorded: RecordedRequest = {
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams.entries()),
      headers: req.headers,
      body: body ?? {},
      wire: classify(method, url.pathname),
    };
    if (this.recordRequests) this.requests.push(recorded);
    for (const waiter of [...this.waiters]) waiter();

    if (body === null) return sendJson(res, 400, { error: { message: 'Request body is not a JSON object.', type: 'invalid_request_error' } });
    if (recorded.wire === 'models') return sendJson(res, 200, this.modelList());
    if (recorded.wire === 'other') return sendJson(res, 404, { error: { message: `No route for ${method} ${url.pathname}`, type: 'invalid_request_error' } });
    if (body['stream'] !== true) return sendJson(res, 400, { error: { message: 'The scripted model server only streams.', type: 'invalid_request_error' } });
    const step = await this.nextStep(recorded);
    await this.play(step, recorded, res);
  }

  private modelList(): unknown {
    const created = Math.floor(Date.now() / 1000);
    return { object: 'list', data: this.models.map((m) => ({ id: m.id, object: 'model', created, owned_by: m.owned_by ?? 'scripted' })) };
  }

  private async nextStep(request: RecordedRequest): Promise<Step> {
    const queued = this.queue.shift();
    if (queued !== undefined) return queued;
    if (this.handler !== null) return this.handler(request);
    return { output: [text(NO_RESPONSE_QUEUED_TEXT)] };
  }

  /** Renders `outputs` (or a streamed fault) as the request's wire frames. */
  private frames(step: OutputStep | Extract<Step, { fault: 'failed' | 'error-event' | 'incomplete' }>, request: RecordedRequest): string[] {
    this.responseCount += 1;
    const model = typeof request.body.model === 'string' ? request.body.model : 'scripted-model';
    if (request.wire === 'responses') {
      const ctx = { responseId: `resp_${this.responseCount}`, model };
      return (isFaultStep(step) ? faultResponseFrames(step, ctx) : completedResponseFrames(step, ctx)).map(renderSse);
    }
    const options = request.body['stream_options'];
    const includeUsage = typeof options === 'object' && options !== null && (options as Record<string, unknown>)['include_usage'] === true;
    const ctx = { completionId: `chatcmpl-${this.responseCount}`, model, includeUsage };
    return (isFaultStep(step) ? faultChatFrames(step, ctx) : completedChatFrames(step, ctx)).map(renderChat);
  }

  private async play(step: Step, request: RecordedRequest, res: ServerResponse): Promise<void> {
    if (!isFaultStep(step)) return this.stream(res, this.frames(step, request), step.delayMs ?? 0, 'end');
    switch (step.fault) {
      case 'http':
        return sendJson(res, step.status, step.body ?? defaultErrorBody(step.status), step.headers ?? {});
      case 'context-too-long':
        return sendJson(res, 400, CONTEXT_TOO_LONG_BODY);
      case 'failed':
      case 'error-event':
      case 'incomplete':
        return this.stream(res, this.frames(step, request), 0, 'end');
      case 'drop-mid-stream':
      case 'stall': {
        const all = this.frames({ output: faultOutputs(step.output) }, request);
        return this.stream(res, all.slice(0, step.after), step.delayMs ?? 0, step.fault === 'stall' ? 'stall' : 'drop');
      }
    }
  }

  /** Streams frames, then ends cleanly, cuts the connection, or stalls until the peer leaves. */
  private async stream(res: ServerResponse, frames: string[], delayMs: number, ending: 'end' | 'drop' | 'stall'): Promise<void> {
    const closed = new AbortController();
    res.once('close', () => closed.abort());
    // No explicit `connection` header: Node then announces `Keep-Alive: timeout=5`, so clients
    // stop reusing an idle connection before this server closes it.
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    for (const [i, frame] of frames.entries()) {
      if (closed.signal.aborted) return;
      await writeFlushed(res, frame);
      if (delayMs > 0 && i < frames.length - 1) await sleep(delayMs, closed.signal);
    }
    if (ending === 'end') res.end();
    else if (ending === 'drop') res.socket?.destroy();
    else await new Promise<void>((resolve) => (closed.signal.aborted ? resolve() : closed.signal.addEventListener('abort', () => resolve(), { once: true })));
  }
}

/** Starts a scripted model server on 127.0.0.1 with an OS-chosen port. */
export async function startScriptedModelServer(options: ScriptedModelServerOptions = {}): Promise<ScriptedModelServer> {
  const server = createServer();
  // Idle keep-alive connections close after Node's usual 5 s, announced in every response's
  // `Keep-Alive` header; `close()` cuts the open ones rather than waiting for that.
  server.keepAliveTimeout = 5_000;
  const state = new ScriptedServerState(server, options);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('scripted model server: no TCP address');
  state.port = address.port;
  state.url = `http://127.0.0.1:${address.port}/v1`;
  return state;
}
