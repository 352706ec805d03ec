/**
 * A minimal app-server client for the benches: spawns a server (ours or the reference) on stdio,
 * speaks NDJSON JSON-RPC without the "jsonrpc" member, correlates responses by id, dispatches
 * notifications to listeners, answers server→client requests (approvals are accepted), and
 * reads the process tree's resident memory from /proc. Every process it starts is killed by PID
 * in `close()`.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

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
  const pending = new Map();
  const listeners = new Set();
  const stderrTail = [];
  let nextId = 1;
  let exited = null;

  const fail = (error) => {
    for (const { reject, timer } of pending.values()) {
      clearTimeout(timer);
      reject(error);
    }
    pending.clear();
  };
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
  createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) => {
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
  });

  const client = {
    label,
    pid: child.pid,
    spawnedAt: started,
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
        if (exited) return reject(new Error(`${label}: already exited`));
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
    /** Resident memory of the server's process tree in KiB (null off Linux). */
    rssKb() {
      if (process.platform !== 'linux' || exited) return null;
      const values = processTree(child.pid).map(rssKbOf).filter((v) => v !== null);
      return values.length === 0 ? null : values.reduce((a, b) => a + b, 0);
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
  };
  return client;
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
