/**
 * StrictStdioServerTransport: MCP over stdin/stdout, one JSON-RPC message per line, that answers
 * what the SDK's own stdio transport silently drops: `-32700` for a line that is not JSON,
 * `-32600` for batches, non-JSON-RPC envelopes, null/float ids and a second `initialize`,
 * `-32602` for non-object params and an invalid `initialize`. It never closes on bad input.
 * On stdin EOF it stops reading, lets in-flight requests finish and answer, then closes — the
 * reference's behaviour — after failing any request it was still waiting on from the client.
 * Lines are split by rpc's NDJSON framer (the app-server's stdio framing); which messages mean
 * what is the SDK's business.
 */
import type { Readable, Writable } from 'node:stream';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter, toLine, type LineEvent } from '@deputy/rpc/core';
import { isSpecType, parseJSONRPCMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';
import { readIdOfTruncated } from '@deputy/protocol/jsonrpc';
import { BIG_ID_PREFIX, isReservedId, restoreBigIds, standInBigId } from './big-ids.js';
import { paramsProblem } from './param-checks.js';

/** Options of the transport. */
export interface StrictStdioOptions {
  /** Longest accepted line in bytes; longer lines are answered -32600 and skipped. */
  maxLineBytes?: number;
  /** Reports problems (never written to stdout). */
  log?: (message: string) => void;
}

type Id = string | number;

/** The stdio transport handed to `serveStdio`. */
export class StrictStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Resolves once the transport has closed. */
  readonly closed: Promise<void>;
  #resolveClosed!: () => void;
  readonly #lines: LineSplitter;
  #ended = false;
  #isClosed = false;
  #initialized = false;
  #initializeId: string | null = null;
  /** Client requests not answered yet (keys keep the id's JSON type). */
  readonly #inflight = new Set<string>();
  /** Server→client requests still waiting for the client. */
  readonly #outbound = new Map<string, Id>();
  readonly #maxLineBytes: number;

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    private readonly options: StrictStdioOptions = {},
  ) {
    this.#maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.#lines = new LineSplitter({ maxLineBytes: this.#maxLineBytes });
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.#onData);
    this.stdin.on('end', this.#onEnd);
    this.stdin.on('close', this.#onEnd);
    this.stdin.on('error', this.#onInputError);
    this.stdout.on('error', this.#onOutputError);
    if (this.stdin.readableEnded) setImmediate(this.#onEnd);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#isClosed) throw new Error('stdio transport is closed');
    if ('id' in message && ('result' in message || 'error' in message)) {
      const key = keyOf(message.id as Id);
      this.#inflight.delete(key);
      if (key === this.#initializeId && 'result' in message) this.#initialized = true;
    } else if ('id' in message && 'method' in message) {
      this.#outbound.set(keyOf(message.id), message.id);
    }
    await this.#write(message);
    if (this.#ended) this.#closeWhenDrained();
  }

  async close(): Promise<void> {
    if (this.#isClosed) return;
    this.#isClosed = true;
    this.stdin.off('data', this.#onData);
    this.stdin.off('end', this.#onEnd);
    this.stdin.off('close', this.#onEnd);
    this.stdin.off('error', this.#onInputError);
    this.stdout.off('error', this.#onOutputError);
    this.stdin.pause();
    this.onclose?.();
    this.#resolveClosed();
  }

  #onData = (chunk: Buffer): void => {
    for (const event of this.#lines.push(chunk)) this.#onLine(event);
  };

  #onLine(event: LineEvent): void {
    if (this.#ended) return;
    if (event.kind === 'overflow') {
      const id = readIdOfTruncated(event.head, event.tail);
      const readable = typeof id === 'bigint' ? `${BIG_ID_PREFIX}${id.toString()}` : (id ?? null);
      return this.#reply(readable, -32600, `Invalid Request: message too large (${event.bytes} bytes; the limit is ${this.#maxLineBytes} bytes)`);
    }
    this.#handleLine(event.text);
  }

  #handleLine(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return this.#reply(null, -32700, 'Parse error');
    }
    if (Array.isArray(value)) return this.#reply(null, -32600, 'Invalid Request: batches are not supported');
    if (typeof value !== 'object' || value === null) return this.#reply(null, -32600, 'Invalid Request: expected a JSON-RPC object');
    const raw = value as Record<string, unknown>;
    if (isReservedId(raw.id)) return this.#reply(null, -32600, 'Invalid Request: this string id is reserved');
    // An integer id beyond ±(2^53−1) keeps its exact digits (see big-ids.ts).
    standInBigId(line, raw);
    const id = readableId(raw.id);
    const isRequest = typeof raw.method === 'string' && 'id' in raw;
    if (isRequest && id === null) return this.#reply(null, -32600, 'Invalid Request: id must be a string or an integer');
    if (isRequest && raw.params !== undefined && (typeof raw.params !== 'object' || raw.params === null || Array.isArray(raw.params))) {
      return this.#reply(id, -32602, 'Invalid params: params must be an object', { method: raw.method });
    }
    const problem = isRequest ? paramsProblem(raw.method, raw.params) : undefined;
    if (problem !== undefined) return this.#reply(id, -32602, problem, { method: raw.method });
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(raw);
    } catch {
      if ('result' in raw || 'error' in raw) return this.options.log?.(`ignoring a malformed response: ${line.slice(0, 200)}`);
      return this.#reply(id, -32600, 'Invalid Request: not a JSON-RPC 2.0 message');
    }
    if (isRequest && raw.method === 'initialize' && !this.#checkInitialize(id as Id, raw.params)) return;
    this.#track(message);
    this.onmessage?.(message);
  }

  /** The lifecycle rules the SDK leaves to us: one `initialize`, with valid params. */
  #checkInitialize(id: Id, params: unknown): boolean {
    if (this.#initialized) {
      this.#reply(id, -32600, 'initialize called more than once');
      return false;
    }
    if (!isSpecType.InitializeRequestParams(params)) {
      this.#reply(id, -32602, 'Invalid params: initialize needs protocolVersion, capabilities and clientInfo', { method: 'initialize' });
      return false;
    }
    this.#initializeId = keyOf(id);
    return true;
  }

  #track(message: JSONRPCMessage): void {
    if ('method' in message && 'id' in message) this.#inflight.add(keyOf(message.id));
    else if ('method' in message && message.method === 'notifications/cancelled') {
      const cancelled = readableId((message.params as Record<string, unknown> | undefined)?.requestId);
      if (cancelled !== null) this.#inflight.delete(keyOf(cancelled));
    } else if ('id' in message) this.#outbound.delete(keyOf(message.id as Id));
  }

  #onEnd = (): void => {
    if (this.#ended) return;
    // A last line without its newline still counts.
    for (const event of this.#lines.end()) this.#onLine(event);
    this.#ended = true;
    // Nobody can answer our requests any more: fail them so no turn waits forever.
    for (const id of this.#outbound.values()) {
      this.onmessage?.({ jsonrpc: '2.0', id, error: { code: -32000, message: 'the client closed its input' } } as JSONRPCMessage);
    }
    this.#outbound.clear();
    this.#closeWhenDrained();
  };

  #closeWhenDrained(): void {
    if (this.#inflight.size === 0) void this.close();
  }

  #onInputError = (error: Error): void => {
    this.onerror?.(error);
    this.#onEnd();
  };

  #onOutputError = (error: Error): void => {
    // The reader is gone (EPIPE): nothing more can be said, so stop.
    this.onerror?.(error);
    this.#inflight.clear();
    void this.close();
  };

  #reply(id: Id | null, code: number, message: string, data?: unknown): void {
    void this.#write({ jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } }).catch(() => undefined);
  }

  #write(message: unknown): Promise<void> {
    return new Promise((resolve, reject) => {
      const ok = this.stdout.write(toLine(restoreBigIds(JSON.stringify(message))), (error) => (error ? reject(error) : undefined));
      if (ok) resolve();
      else this.stdout.once('drain', resolve);
    });
  }
}

function readableId(id: unknown): Id | null {
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

function keyOf(id: Id): string {
  return `${typeof id}:${id}`;
}
