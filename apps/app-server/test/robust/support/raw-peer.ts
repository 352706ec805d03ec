/**
 * Raw peers of the built app-server for the robustness suite: each sends exact text (one NDJSON
 * line on stdio, one text frame on ws and unix) and records every frame it receives as text, so
 * tests can check the wire itself (ids digit for digit, close codes, nothing answered). A peer
 * can stop reading (`pause`) to play a slow consumer. Nothing here parses with the server's codec.
 */
import net from 'node:net';
import WebSocket from 'ws';
import { waitFor } from '@deputy/test-support';
import type { ServerProcess } from '../../e2e/support/server-process.js';

/** A parsed frame, with its text. */
export interface RawFrame {
  text: string;
  value: Record<string, unknown> & { id?: unknown; method?: string; error?: { code: number; message: string }; result?: unknown };
}

/** One raw connection. */
export interface RawPeer {
  readonly kind: 'stdio' | 'ws' | 'unix';
  /** Every frame received, in order. */
  readonly frames: RawFrame[];
  /** Sends one frame of text as is. */
  send(text: string): void;
  /** Waits for the first frame whose text passes `match`. */
  waitText(match: (text: string) => boolean, timeoutMs?: number, what?: string): Promise<RawFrame>;
  /** Stops reading from the socket (the server's writes then back up). */
  pause(): void;
  resume(): void;
  /** Resolves with the close code once the server closes (ws and unix only). */
  readonly closeCode: Promise<number>;
  close(): void;
}

function parse(text: string): RawFrame {
  let value: RawFrame['value'];
  try {
    value = JSON.parse(text) as RawFrame['value'];
  } catch {
    value = {};
  }
  return { text, value };
}

function peerOf(kind: RawPeer['kind'], frames: RawFrame[], parts: Pick<RawPeer, 'send' | 'pause' | 'resume' | 'closeCode' | 'close'>): RawPeer {
  return {
    kind,
    frames,
    ...parts,
    waitText: (match, timeoutMs = 20_000, what = 'a frame') => waitFor(() => frames.find((f) => match(f.text)), timeoutMs, what),
  };
}

/** The spawned server's own stdin and stdout. */
export function stdioPeer(server: ServerProcess): RawPeer {
  const frames: RawFrame[] = [];
  let buffer = '';
  server.child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      frames.push(parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
    }
  });
  return peerOf('stdio', frames, {
    send: (text) => void server.child.stdin.write(`${text}\n`),
    pause: () => void server.child.stdout.pause(),
    resume: () => void server.child.stdout.resume(),
    closeCode: server.exited.then(() => 0),
    close: () => void server.child.stdin.end(),
  });
}

/** A WebSocket to `url` (`ws://…` or `ws+unix://PATH:/`). */
export async function wsPeer(url: string, kind: 'ws' | 'unix' = 'ws'): Promise<RawPeer> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const frames: RawFrame[] = [];
  ws.on('message', (data) => frames.push(parse(data.toString())));
  ws.on('error', () => undefined);
  const closeCode = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  // ws has no read pause of its own: pausing the socket stops reading at the TCP level.
  const socket = (): net.Socket => (ws as unknown as { _socket: net.Socket })._socket;
  return peerOf(kind, frames, {
    send: (text) => ws.readyState === ws.OPEN && ws.send(text),
    pause: () => void socket().pause(),
    resume: () => void socket().resume(),
    closeCode,
    close: () => ws.terminate(),
  });
}

/** The `initialize` request line with id `id` (its text, so a big id stays exact). */
export function initializeLine(id: string): string {
  return `{"method":"initialize","id":${id},"params":{"clientInfo":{"name":"robust","version":"1"}}}`;
}

/** Initializes a peer (id `"init"`) and sends `initialized`. */
export async function initialize(peer: RawPeer): Promise<void> {
  peer.send(initializeLine('"init"'));
  await peer.waitText((t) => t.includes('"id":"init"'), 20_000, `the ${peer.kind} initialize response`);
  peer.send('{"method":"initialized"}');
}
