/**
 * The strict stdio transport over in-memory streams: line framing across chunk boundaries
 * (CRLF and multi-byte characters split between chunks), the answers to bad lines, the line
 * size limit, and EOF handling (wait for in-flight requests, fail our own pending requests).
 */
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { StrictStdioServerTransport } from '../../src/transport/strict-stdio.js';
import { waitFor } from '../helpers/harness.js';

function setup(maxLineBytes?: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const written: Record<string, unknown>[] = [];
  let buffer = '';
  stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      written.push(JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>);
      buffer = buffer.slice(nl + 1);
    }
  });
  const transport = new StrictStdioServerTransport(stdin, stdout, maxLineBytes ? { maxLineBytes } : {});
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (m) => void received.push(m);
  let closed = false;
  transport.onclose = () => void (closed = true);
  return { stdin, transport, written, received, isClosed: () => closed };
}

describe('StrictStdioServerTransport framing', () => {
  it('reassembles a line split across chunks, with CRLF and a multi-byte character cut in two', async () => {
    const { stdin, transport, received } = setup();
    await transport.start();
    const bytes = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"note":"é"}}}\r\n', 'utf8');
    const cut = bytes.indexOf(Buffer.from('é')) + 1;
    stdin.write(bytes.subarray(0, cut));
    stdin.write(bytes.subarray(cut, bytes.length - 1));
    stdin.write(bytes.subarray(bytes.length - 1));
    await waitFor(() => received.length === 1, 1000, 'the message');
    expect(received[0]).toEqual({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { note: 'é' } } });
  });

  it('reads a last line that has no newline before EOF', async () => {
    const { stdin, transport, received } = setup();
    await transport.start();
    stdin.end('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    await waitFor(() => received.length === 1, 1000, 'the message');
  });

  it('answers bad lines and passes good ones on', async () => {
    const { stdin, transport, written, received } = setup();
    await transport.start();
    stdin.write('not json\n[1,2]\n{"a":1}\n{"jsonrpc":"2.0","id":2.5,"method":"ping"}\n{"jsonrpc":"2.0","id":3,"method":"x","params":[1]}\n\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    await waitFor(() => written.length === 5 && received.length === 1, 1000, 'the answers');
    expect(written.map((m) => (m.error as { code: number }).code)).toEqual([-32700, -32600, -32600, -32600, -32602]);
    expect(written[4]).toMatchObject({ id: 3, error: { data: { method: 'x' } } });
    expect(received).toEqual([{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
  });

  it('answers a line over the size limit once under its id, skips it, and keeps reading', async () => {
    const { stdin, transport, written, received } = setup(64);
    await transport.start();
    stdin.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(40)}`);
    stdin.write(`${'y'.repeat(40)}"}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n`);
    await waitFor(() => received.length === 1, 1000, 'the next message');
    const line = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(40)}${'y'.repeat(40)}"}}`;
    expect(written).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32600, message: `Invalid Request: message too large (${line.length} bytes; the limit is 64 bytes)` } }]);
    expect(received[0]).toMatchObject({ id: 2 });
  });
});

describe('StrictStdioServerTransport lifecycle', () => {
  it('answers a second initialize itself once the first succeeded', async () => {
    const { stdin, transport, written, received } = setup();
    await transport.start();
    const init = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n`;
    stdin.write(init(1));
    await waitFor(() => received.length === 1, 1000, 'initialize');
    await transport.send({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1' } } } as JSONRPCMessage);
    stdin.write(init(2));
    await waitFor(() => written.length === 2, 1000, 'the refusal');
    expect(written[1]).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32600, message: 'initialize called more than once' } });
  });

  it('on EOF waits for in-flight requests, fails its own pending requests, then closes', async () => {
    const { stdin, transport, received, isClosed } = setup();
    await transport.start();
    stdin.write('{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"codex"}}\n{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"codex"}}\n');
    await waitFor(() => received.length === 2, 1000, 'the requests');
    await transport.send({ jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: { message: 'ok?' } } as JSONRPCMessage);
    stdin.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b"}}\n');
    stdin.end();
    await waitFor(() => received.some((m) => 'error' in m), 1000, 'the synthesized error');
    expect(received.find((m) => 'error' in m)).toEqual({ jsonrpc: '2.0', id: 0, error: { code: -32000, message: 'the client closed its input' } });
    expect(isClosed()).toBe(false);
    await transport.send({ jsonrpc: '2.0', id: 'a', result: { content: [] } } as JSONRPCMessage);
    await waitFor(() => isClosed(), 1000, 'the close');
  });
});
