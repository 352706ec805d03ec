/** Small helpers for tests that run turns through a `WireClient`. */
import type { Received, WireClient } from './wire-client.js';

/** Wire thread fields tests look at. */
export interface WireThread {
  id: string;
  preview: string;
  name: string | null;
  status: { type: string; activeFlags?: string[] };
  path: string | null;
  cwd: string;
  forkedFromId: string | null;
  createdAt: number;
  updatedAt: number;
  turns: Array<{ id: string; status: string; itemsView: string; items: Array<Record<string, unknown> & { id: string; type: string }> }>;
}

/** Starts a thread and returns it. */
export async function startThread(client: WireClient, params: Record<string, unknown> = {}): Promise<WireThread> {
  const result = await client.call<{ thread: WireThread }>('thread/start', params);
  return result.thread;
}

/** Starts a turn; resolves with its id. */
export async function startTurn(client: WireClient, threadId: string, text: string, extra: Record<string, unknown> = {}): Promise<string> {
  const result = await client.call<{ turn: { id: string } }>('turn/start', { threadId, input: [{ type: 'text', text }], ...extra });
  return result.turn.id;
}

/** Waits for the `turn/completed` of a turn. */
export function turnCompleted(client: WireClient, turnId: string, timeoutMs?: number): Promise<Received> {
  return client.waitForNotification('turn/completed', (p) => (p.turn as { id: string }).id === turnId, timeoutMs);
}

/** Runs a text turn to its end; resolves with the completed turn's params. */
export async function runTurn(client: WireClient, threadId: string, text: string): Promise<Received> {
  return turnCompleted(client, await startTurn(client, threadId, text));
}

/** The notifications of one turn, from its response's position on: methods in order. */
export function turnMethods(client: WireClient, turnId: string): string[] {
  const all = client.notifications();
  const start = all.findIndex((n) => n.method === 'turn/started' && (n.params.turn as { id: string }).id === turnId);
  const end = all.findIndex((n) => n.method === 'turn/completed' && (n.params.turn as { id: string }).id === turnId);
  return all.slice(Math.max(0, start - 1), end + 1).map((n) => n.method);
}
