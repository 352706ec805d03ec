/** The NDJSON stdio transport over in-process streams: framing, dropped input, frame reports, drain, and EOF. */
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../src/connection.js';
import { createStdioListener, createStdioTransport } from '../../src/transport/stdio.js';
import type { RpcLogger, Transport } from '../../src/transport/transport.js';
import { waitFor, within } from '../helpers.js';

const transports: Transport[] = [];
afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
});

function streams() {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = '';
  output.on('data', (c: Buffer) => (written += c.toString('utf8')));
  return { input, output, written: () => written };
}

describe('stdio transport', () => {
  it('serves requests split across chunks and writes one compact JSON line per message', async () => {
    const io = streams();
    const transport = createStdioTransport({ input: io.input, output: io.output });
    transports.push(transport);
    const connection = new Connection(transport, { handler: { handleRequest: (r) => ({ got: r.params }) } });
    io.input.write('{"id":1,"method":"echo","par');
    io.input.write(Buffer.from('ams":{"t":"caf', 'utf8'));
    io.input.write(Buffer.from([0xc3]));
    io.input.write(Buffer.from([0xa9, ...Buffer.from('"}}\r')]));
    io.input.write('\n{"method":"initialized"}\n');
    await waitFor(() => io.written().endsWith('\n'));
    expect(io.written()).toBe('{"id":1,"result":{"got":{"t":"café"}}}\n');
    connection.notify('turn/started', { a: 1 });
    await connection.flush();
    await waitFor(() => io.written().split('\n').length === 3);
    expect(io.written().split('\n')[1]).toBe('{"method":"turn/started","params":{"a":1}}');
  });

  it('drops lines that are not messages, logs each, and keeps serving', async () => {
    const io = streams();
    const warnings: string[] = [];
    const logger: RpcLogger = { info() {}, warn: (m, d) => warnings.push(`${m}: ${String(d?.error ?? d?.bytes)}`), error() {} };
    const transport = createStdioTransport({ input: io.input, output: io.output, logger, maxLineBytes: 64 });
    transports.push(transport);
    new Connection(transport, { handler: { handleRequest: () => 'ok' } });
    const junk = ['{not json', '   ', '[{"id":1,"method":"a"}]', '{"id":null,"method":"a"}', '{"id":7.5,"method":"a"}', `{"x":"${'y'.repeat(100)}"}`];
    io.input.write(`${junk.join('\n')}\n\n{"id":2,"method":"a"}\n`);
    await waitFor(() => io.written() !== '');
    expect(io.written()).toBe('{"id":2,"result":"ok"}\n');
    // The over-long line is reported as it arrives, the others as they are decoded.
    expect(warnings).toHaveLength(6);
    expect(warnings.filter((w) => /over-long line/.test(w))).toHaveLength(1);
  });

  it('reports each decoded frame to onFrame with its text and the arrival time of its last chunk', async () => {
    const io = streams();
    const frames: { id: unknown; text: string; receivedAt: number }[] = [];
    const transport = createStdioTransport({
      input: io.input,
      output: io.output,
      onFrame: (message, frame) => frames.push({ id: 'id' in message ? message.id : undefined, ...frame }),
    });
    transports.push(transport);
    const received: unknown[] = [];
    void (async () => {
      for await (const message of transport.messages()) received.push(message);
    })();
    const before = performance.now();
    io.input.write('{"id":1,"result":"caf');
    await new Promise((resolve) => setTimeout(resolve, 30));
    const lastChunk = performance.now();
    io.input.write('é"}\n{not json\n{"method":"x"}\n');
    await waitFor(() => received.length === 2);
    // The invalid line is dropped without a report; each report comes before its message.
    expect(frames.map((f) => [f.id, f.text])).toEqual([
      [1, '{"id":1,"result":"café"}'],
      [undefined, '{"method":"x"}'],
    ]);
    expect(frames[0]?.receivedAt).toBeGreaterThanOrEqual(lastChunk);
    expect(frames[0]?.receivedAt).toBeGreaterThan(before);
  });

  it('writes the lines sent during one pass of the event loop in one call, and flushes them on close', async () => {
    const calls: string[] = [];
    const output = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        calls.push(chunk.toString('utf8'));
        callback();
      },
      writev(chunks, callback) {
        calls.push(chunks.map((c) => (c.chunk as Buffer).toString('utf8')).join(''));
        callback();
      },
    });
    const transport = createStdioTransport({ input: new PassThrough(), output });
    transports.push(transport);
    // Sends from a synchronous run and from later promise continuations of the same pass.
    void transport.send({ method: 'a' });
    await Promise.resolve();
    void transport.send({ method: 'b' });
    await new Promise<void>((resolve) => process.nextTick(resolve));
    void transport.send({ method: 'c' });
    expect(calls).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual(['{"method":"a"}\n{"method":"b"}\n{"method":"c"}\n']);
    // A line sent right before the transport closes is written by the close, not later.
    void transport.send({ method: 'd' });
    await transport.close();
    expect(calls).toEqual(['{"method":"a"}\n{"method":"b"}\n{"method":"c"}\n', '{"method":"d"}\n']);
  });

  it('makes a send wait for drain when the reader does not keep up', async () => {
    const input = new PassThrough();
    const output = new PassThrough({ highWaterMark: 1024 });
    const transport = createStdioTransport({ input, output });
    transports.push(transport);
    const big = { method: 'n', params: { s: 'x'.repeat(4096) } };
    let sent = false;
    const sending = transport.send(big).then(() => (sent = true));
    await new Promise((r) => setImmediate(r));
    expect(sent).toBe(false);
    output.resume();
    await within(sending, 2000, 'drain');
    expect(sent).toBe(true);
  });

  it('resolves closed on EOF of the input, and the connection closes with it', async () => {
    const io = streams();
    const transport = createStdioTransport({ input: io.input, output: io.output });
    transports.push(transport);
    const connection = new Connection(transport, { handler: { handleRequest: () => 'ok' } });
    io.input.write('{"id":1,"method":"a"}');
    io.input.end();
    await within(transport.closed, 2000, 'transport closed');
    await within(connection.closed, 2000, 'connection closed');
    await expect(transport.send({ method: 'late' })).rejects.toThrow(/closed/);
  });

  it('yields exactly one connection from the stdio listener', async () => {
    const io = streams();
    const listener = createStdioListener({ input: io.input, output: io.output });
    const seen: Transport[] = [];
    const done = (async () => {
      for await (const t of listener.connections()) seen.push(t);
    })();
    await within(done, 2000, 'listener end');
    expect(seen).toHaveLength(1);
    await listener.close();
    await within(seen[0]!.closed, 2000, 'closed');
  });
});
