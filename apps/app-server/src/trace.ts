/**
 * The wire trace (docs/app-server.md "Wire trace"): with `DEPUTY_TRACE=FILE` or `--trace FILE`,
 * every JSON-RPC message a connection receives or sends is appended to FILE as one JSON line
 * `{"ts": ISO time, "connection": id, "direction": "in" | "out", "message": …}`, so a user can see
 * what a client sent and what Deputy answered. Off by default. Secrets are redacted before
 * anything is written: the value of every key that names a token, secret, password, API key or
 * authorization becomes `"[redacted]"`, and so does any string that looks like a bearer token or an
 * `sk-` key. The file is created with mode 0600 and written in order, without blocking the server.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { JsonRpcMessage } from '@deputy/protocol/jsonrpc';
import type { Transport } from '@deputy/rpc/core';

/** Keys whose values are never written. */
const SECRET_KEY = /token|secret|password|passwd|api[-_]?key|authorization|cookie|credential|private[-_]?key/i;
/** Strings that are secrets whatever their key. */
const SECRET_TEXT = [/\bBearer\s+[A-Za-z0-9._~+/=-]+/gi, /\bsk-[A-Za-z0-9_-]{8,}/g];
const REDACTED = '[redacted]';

/** A copy of `value` with secrets replaced (see the module comment). */
export function redact(value: unknown): unknown {
  if (typeof value === 'string') return SECRET_TEXT.reduce((text, pattern) => text.replace(pattern, REDACTED), value);
  if (Array.isArray(value)) return value.map(redact);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, SECRET_KEY.test(key) && inner !== null && inner !== false ? REDACTED : redact(inner)]),
    );
  }
  return value;
}

/** An open trace file. */
export class WireTrace {
  readonly #stream: WriteStream;

  constructor(readonly file: string) {
    this.#stream = createWriteStream(file, { flags: 'a', mode: 0o600 });
    // A trace that cannot be written must not take the server down; the error is reported once.
    this.#stream.once('error', (e) => process.stderr.write(`deputy app-server: cannot write the trace ${file}: ${e.message}\n`));
  }

  /** Appends one message. */
  record(connection: number, direction: 'in' | 'out', message: JsonRpcMessage): void {
    if (this.#stream.destroyed) return;
    const line = { ts: new Date().toISOString(), connection, direction, message: redact(message) };
    this.#stream.write(`${JSON.stringify(line)}\n`);
  }

  /** Flushes and closes the file. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#stream.destroyed || this.#stream.writableEnded) resolve();
      else this.#stream.end(() => resolve());
    });
  }
}

/**
 * A transport that records what passes through it in `trace`; `connectionId` names the connection
 * (read at each message, since the connection is created around the transport).
 */
export function tracedTransport(transport: Transport, trace: WireTrace, connectionId: () => number): Transport {
  return {
    description: transport.description,
    closed: transport.closed,
    close: (reason) => transport.close(reason),
    send(message) {
      trace.record(connectionId(), 'out', message);
      return transport.send(message);
    },
    async *messages() {
      for await (const message of transport.messages()) {
        trace.record(connectionId(), 'in', message);
        yield message;
      }
    },
  };
}
