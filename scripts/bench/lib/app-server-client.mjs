/**
 * The benches' app-server clients, on `@deputy/client` (imported from packages/client's build):
 * `spawnAppServer` starts a server (ours or the reference, which speaks the same protocol) on
 * stdio and connects to it, `connectWebSocket` connects to a `ws://` listener, and
 * `spawnServerProcess` starts a server without connecting (for `ws://` listeners). Both sides are
 * measured the same way: results and notifications are not checked against Deputy's schemas
 * (`validate: false`, which also keeps the client's own cost out of the figures), approvals are
 * accepted, other server requests refused, and every request is bounded by a timeout. Also the
 * process-tree RSS from /proc. Every process is killed by PID in `close()`.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { importDist } from './paths.mjs';

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

/** Keeps the last 50 chunks of `stream`. */
function tailOf(stream) {
  const tail = [];
  stream.on('data', (chunk) => {
    tail.push(chunk.toString('utf8'));
    if (tail.length > 50) tail.shift();
  });
  return tail;
}

/**
 * Spawns `command args` with piped stdio and returns the process side of a server: `rssKb()`
 * of its process tree, `openFds()`, the last `stderr()` output, `spawnedAt`, and `close()`
 * (ends stdin, then kills by PID after 3 s). Its stdout is left to the caller.
 */
export function spawnServerProcess({ command, args, env, cwd, label }) {
  const spawnedAt = performance.now();
  const child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.on('error', () => undefined);
  child.stdin.on('error', () => undefined);
  const stderrTail = tailOf(child.stderr);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const isRunning = () => child.exitCode === null && child.signalCode === null;
  return {
    label,
    child,
    pid: child.pid,
    spawnedAt,
    /** Resident memory of the server's process tree in KiB (null off Linux). */
    rssKb() {
      return isRunning() ? treeRssKb(child.pid) : null;
    },
    /** Open file descriptors of the server process (null off Linux). */
    openFds() {
      try {
        return isRunning() ? readdirSync(`/proc/${child.pid}/fd`).length : null;
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
      if (!isRunning()) return;
      child.stdin.end();
      const timer = setTimeout(() => {
        try {
          process.kill(child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }, 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Connects with the bench's settings and returns the client with `label`, errors that name the
 * server (and end with `stderr()` when given), and `onNotification`.
 */
async function benchConnect(target, { label, timeoutMs, stderr = () => '' }) {
  const { connect, RpcError } = await importDist('client');
  const named = (error) => Object.assign(new Error(`${label}: ${error.message}${stderr() ? `; stderr: ${stderr().slice(-2000)}` : ''}`), { cause: error });
  const client = await connect({
    ...target,
    clientInfo: { name: 'deputy-bench', title: null, version: '0.1.0' },
    experimentalApi: true,
    validate: false,
    timeoutMs,
    onServerRequest: ({ method }) => {
      if (method.endsWith('/requestApproval')) return { decision: 'accept' };
      throw new RpcError(-32601, 'bench client: not handled');
    },
  }).catch((error) => {
    throw named(error);
  });
  return {
    ...client,
    label,
    request: (method, params, options) => client.request(method, params, options).catch((error) => Promise.reject(named(error))),
    /** Resolves with `{ result, ms, bytes }`: `ms` from sending the request to the arrival of the response (client parsing excluded). */
    requestTimed: (method, params, options) => client.requestTimed(method, params, options).catch((error) => Promise.reject(named(error))),
    /** Calls `listener` for every notification until the returned function is called. */
    onNotification(listener) {
      const events = client.notifications()[Symbol.asyncIterator]();
      void (async () => {
        for (let next = await events.next(); !next.done; next = await events.next()) listener(next.value);
      })();
      return () => void events.return();
    },
  };
}

/**
 * Spawns a server on stdio, connects and initializes; resolves with the client and the process
 * side of {@link spawnServerProcess}, plus `readyAt` (the `initialize` response arrived).
 * `timeoutMs` bounds every request; `close()` closes both.
 */
export async function spawnAppServer({ timeoutMs = 120_000, ...options }) {
  // Loaded before the spawn, so its first import is not counted as server start-up.
  await importDist('client');
  const server = spawnServerProcess(options);
  let client;
  try {
    client = await benchConnect({ stdio: { input: server.child.stdout, output: server.child.stdin } }, { label: options.label, timeoutMs, stderr: server.stderr });
  } catch (error) {
    await server.close();
    throw error;
  }
  return {
    ...client,
    ...server,
    readyAt: performance.now(),
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** Connects to a server's `ws://` listener, retrying for `waitMs` while it starts. */
export async function connectWebSocket(url, { label = 'ws', timeoutMs = 120_000, waitMs = 30_000 } = {}) {
  const deadline = performance.now() + waitMs;
  for (;;) {
    try {
      return await benchConnect({ ws: url }, { label, timeoutMs });
    } catch (error) {
      if (performance.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Starts a thread and resolves with its id. */
export async function startThread(client, params = {}) {
  const result = await client.request('thread/start', params);
  return result.thread.id;
}

/** The thread's `turn/completed` from `events`, or a rejection after `waitMs` (which ends `events`). */
async function turnCompleted(client, events, waitMs) {
  const iterator = events[Symbol.asyncIterator]();
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => {
      void iterator.return();
      reject(new Error(`${client.label}: no turn/completed within ${waitMs} ms`));
    }, waitMs);
  });
  const completed = (async () => {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      if (next.value.method === 'turn/completed') return next.value;
    }
    throw new Error(`${client.label}: the connection closed before turn/completed`);
  })();
  // After a timeout the loop ends too; its rejection is the timeout's, already reported.
  completed.catch(() => undefined);
  try {
    return await Promise.race([completed, timeout]);
  } finally {
    clearTimeout(timer);
    void iterator.return();
  }
}

/**
 * Runs one turn and resolves with its latency (request sent → `turn/completed` received) in
 * milliseconds. Throws when the turn does not complete.
 */
export async function runTurn(client, threadId, text, extra = {}, waitMs = 120_000) {
  const events = client.notifications({ threadId });
  const t0 = performance.now();
  await client.request('turn/start', { threadId, input: [{ type: 'text', text, text_elements: [] }], ...extra });
  const message = await turnCompleted(client, events, waitMs);
  const ms = performance.now() - t0;
  const status = message.params.turn?.status;
  if (status !== 'completed') throw new Error(`${client.label}: turn ended ${status}: ${JSON.stringify(message.params.turn?.error ?? null)}`);
  return ms;
}
