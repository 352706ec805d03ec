/**
 * A raw JSON-RPC line client for the built server: writes exact lines to its stdin and records
 * every stdout line, so tests can check the wire itself (malformed input, ids, ordering, the
 * absence of a response). Kills its process by PID on `kill()`.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { SERVER_MAIN, waitFor } from './harness.js';

/** A JSON-RPC message as received. */
export type Wire = Record<string, unknown> & { id?: unknown; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };

/** One spawned server driven line by line. */
export class RawClient {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every stdout line, in order. */
  readonly lines: string[] = [];
  /** Every parsed stdout message, in order. */
  readonly messages: Wire[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;
  #buffer = '';

  constructor(env: Record<string, string>, args: string[] = [], cwd?: string) {
    this.child = spawn(process.execPath, [SERVER_MAIN, ...args], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.#buffer += chunk;
      for (let nl = this.#buffer.indexOf('\n'); nl >= 0; nl = this.#buffer.indexOf('\n')) {
        const line = this.#buffer.slice(0, nl);
        this.#buffer = this.#buffer.slice(nl + 1);
        this.lines.push(line);
        this.messages.push(JSON.parse(line) as Wire);
      }
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  /** Writes one line (an object is JSON-encoded). */
  write(message: string | Record<string, unknown>): void {
    this.child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  }

  /** Sends a request and waits for its response. */
  async request(id: string | number, method: string, params?: Record<string, unknown>, timeoutMs = 15_000): Promise<Wire> {
    this.write({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    return this.response(id, timeoutMs);
  }

  /** Waits for the response to `id` (same JSON type). */
  response(id: unknown, timeoutMs = 15_000): Promise<Wire> {
    return waitFor(() => this.messages.find((m) => m.id === id && (m.result !== undefined || m.error !== undefined)), timeoutMs, `the response to ${JSON.stringify(id)}`);
  }

  /** The 2025-06-18 handshake (with or without the elicitation capability). */
  async initialize(capabilities: Record<string, unknown> = { elicitation: {} }, protocolVersion = '2025-06-18'): Promise<Wire> {
    const response = await this.request('init', 'initialize', { protocolVersion, capabilities, clientInfo: { name: 'raw-test', version: '1.0' } });
    this.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return response;
  }

  /** Waits for a message matching `predicate`. */
  waitFor(predicate: (m: Wire) => boolean, timeoutMs = 15_000, what = 'a message'): Promise<Wire> {
    return waitFor(() => this.messages.find(predicate), timeoutMs, what);
  }

  /** `codex/event` messages of one request, in order. */
  events(requestId: unknown): Record<string, unknown>[] {
    return this.messages
      .filter((m) => m.method === 'codex/event' && (m.params?._meta as { requestId?: unknown } | undefined)?.requestId === requestId)
      .map((m) => m.params?.msg as Record<string, unknown>);
  }

  /** Closes stdin (EOF). */
  end(): void {
    this.child.stdin.end();
  }

  /** Kills the process by PID (idempotent) and waits for it to exit. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null && this.child.pid !== undefined) {
      try {
        process.kill(this.child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await this.exited;
  }
}
