/**
 * A minimal app-server client for the benches: spawns a server (ours or the reference) on stdio,
 * speaks NDJSON JSON-RPC without the "jsonrpc" member, correlates responses by id, dispatches
 * notifications to listeners, answers server→client requests (approvals are accepted), and
 * reads the process tree's resident memory from /proc. Every process it starts is killed by PID
 * in `close()`.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from './paths.mjs';

/** Resident set size of `pid` in KiB (Linux /proc), or null. */
function rssKbOf(pid) {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** `pid` and all its descendants (Linux /proc). */
function processTree(root) {
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {
      // The process ended while we looked.
    }
  }
  const out = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift();
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** Resident memory of `pid` and its descendants in KiB (null off Linux). */
export function treeRssKb(pid) {
  if (process.platform !== 'linux') return null;
  const values = processTree(pid).map(rssKbOf).filter((v) => v !== null);
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0);
}

/** What a server→client request is answered with. */
function defaultServerRequestAnswer(method) {
  if (method.endsWith('/requestApproval')) return { decision: 'accept' };
  return null;
}

/**
 * Spawns `command args` with stdio pipes and returns a client. `onExit` of the child rejects
 * pending requests; `timeoutMs` bounds every request.
 */
export function spawnAppServer({ command, args, env, cwd, label, timeoutMs = 120_000 }) {
  const started = performance.now();
  const child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const stderrTail = [];
  let exited = null;
  let fail = () => {};
  child.on('exit', (code, signal) => {
    exited = { code, signal };
    fail(new Error(`${label}: exited (${signal ?? code}) with requests pending; stderr: ${stderrTail.join('').slice(-2000)}`));
  });
  child.on('error', (error) => fail(error));
  child.stdin.on('error', () => {});
  child.stderr.on('data', (chunk) => {
    stderrTail.push(chunk.toString('utf8'));
    if (stderrTail.length > 50) stderrTail.shift();
  });

  const send = (message) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const rpc = rpcClient({ label, send, timeoutMs, isClosed: () => exited !== null });
  fail = rpc.fail;
  createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', rpc.receive);

  return Object.assign(rpc.client, {
    pid: child.pid,
    spawnedAt: started,
    /** Resident memory of the server's process tree in KiB (null off Linux). */
    rssKb() {
      return exited ? null : treeRssKb(child.pid);
    },
    /** Open file descriptors of the server process (null off Linux). */
    openFds() {
      try {
        return exited ? null : readdirSync(`/proc/${child.pid}/fd`).length;
      } catch {
        return null;
      }
    },
    /** The last stderr output (for error messages). */
    stderr() {
      return stderrTail.join('');
    },
    /** Closes stdin, waits briefly for a clean exit, then kills the process by PID. */
    async close() {
      if (exited) return;
      const done = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.end();
      const timer = setTimeout(() => {
        try {
          process.kill(child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }, 3_000);
      await done;
      clearTimeout(timer);
    },
  });
}

/**
 * Connects to a server's `ws://` listener (retrying for `waitMs` while it starts) and returns
 * the same client as `spawnAppServer` without the process parts; `close()` closes the socket.
 */
export async function connectWebSocket(url, { label = 'ws', timeoutMs = 120_000, waitMs = 30_000 } = {}) {
  const WebSocket = createRequire(path.join(REPO_ROOT, 'apps/app-server/package.json'))('ws');
  const deadline = performance.now() + waitMs;
  for (;;) {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    const opened = await new Promise((resolve) => ws.once('open', () => resolve(true)).once('error', () => resolve(false)));
    if (!opened) {
      ws.terminate();
      if (performance.now() > deadline) throw new Error(`${label}: could not connect to ${url}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    let closed = false;
    const rpc = rpcClient({ label, send: (message) => ws.send(JSON.stringify(message)), timeoutMs, isClosed: () => closed });
    ws.on('message', (data) => rpc.receive(data.toString('utf8')));
    ws.on('error', () => undefined);
    ws.once('close', () => {
      closed = true;
      rpc.fail(new Error(`${label}: connection closed`));
    });
    return Object.assign(rpc.client, {
      close: () => {
        if (!closed) ws.close();
      },
    });
  }
}

/**
 * The JSON-RPC side of a client, independent of the transport: `receive(line)` takes one
 * incoming message, `send(message)` writes one, `fail(error)` rejects every pending request.
 */
export function rpcClient({ label, send, timeoutMs = 120_000, isClosed = () => false }) {
  const pending = new Map();
  const listeners = new Set();
  let nextId = 1;
  const fail = (error) => {
    for (const { reject, timer } of pending.values()) {
      clearTimeout(timer);
      reject(error);
    }
    pending.clear();
  };
  const receive = (line) => {
    if (line.trim() === '') return;
    // Arrival time and size, before this client's own JSON.parse, so timings exclude the client.
    const receivedAt = performance.now();
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (message.method !== undefined && message.id !== undefined) {
      const answer = defaultServerRequestAnswer(message.method);
      send(answer === null ? { id: message.id, error: { code: -32601, message: 'bench client: not handled' } } : { id: message.id, result: answer });
      return;
    }
    if (message.method !== undefined) {
      for (const listener of [...listeners]) listener(message);
      return;
    }
    const entry = pending.get(message.id);
    if (!entry) return;
    pending.delete(message.id);
    clearTimeout(entry.timer);
    if (message.error) entry.reject(Object.assign(new Error(`${label}: ${entry.method}: ${message.error.message}`), { rpc: message.error }));
    else entry.resolve({ result: message.result, ms: receivedAt - entry.sentAt, bytes: Buffer.byteLength(line) });
  };

  const client = {
    label,
    /** Sends a request and resolves with its result. */
    async request(method, params) {
      return (await client.requestTimed(method, params)).result;
    },
    /**
     * Sends a request; resolves with `{ result, ms, bytes }`: `ms` from the write of the request
     * to the arrival of the response line, `bytes` the response line's size.
     */
    requestTimed(method, params) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        if (isClosed()) return reject(new Error(`${label}: already exited`));
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${label}: ${method} timed out after ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, { resolve, reject, timer, method, sentAt: performance.now() });
        send(params === undefined ? { method, id } : { method, id, params });
      });
    },
    /** Sends a notification. */
    notify(method, params) {
      send(params === undefined ? { method } : { method, params });
    },
    /** Calls `listener` for every notification until the returned function is called. */
    onNotification(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** Resolves with the first notification `predicate` accepts. */
    waitForNotification(predicate, waitMs = timeoutMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          stop();
          reject(new Error(`${label}: no matching notification within ${waitMs} ms`));
        }, waitMs);
        const stop = client.onNotification((message) => {
          if (!predicate(message)) return;
          clearTimeout(timer);
          stop();
          resolve(message);
        });
      });
    },
    /** `initialize` + `initialized`; resolves with the result. */
    async initialize() {
      const result = await client.request('initialize', { clientInfo: { name: 'deputy-bench', title: null, version: '0.1.0' }, capabilities: { experimentalApi: true } });
      client.notify('initialized');
      return result;
    },
  };
  return { client, receive, fail };
}


/** Starts a thread and resolves with its id. */
export async function startThread(client, params = {}) {
  const result = await client.request('thread/start', params);
  return result.thread.id;
}

/**
 * Runs one turn and resolves with its latency (request sent → `turn/completed` received) in
 * milliseconds. Throws when the turn does not complete.
 */
export async function runTurn(client, threadId, text, extra = {}) {
  const completed = client.waitForNotification((m) => m.method === 'turn/completed' && m.params?.threadId === threadId);
  const t0 = performance.now();
  await client.request('turn/start', { threadId, input: [{ type: 'text', text, text_elements: [] }], ...extra });
  const message = await completed;
  const ms = performance.now() - t0;
  const status = message.params.turn?.status;
  if (status !== 'completed') throw new Error(`${client.label}: turn ended ${status}: ${JSON.stringify(message.params.turn?.error ?? null)}`);
  return ms;
}
