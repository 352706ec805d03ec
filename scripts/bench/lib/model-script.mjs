/**
 * The scripted model both servers talk to in the benches, and a timing proxy in front of it. The
 * script is stateless (each answer follows from the request's own conversation): `run: CMD`
 * calls `exec_command` with CMD in a non-login shell, `shell: CMD` with the default shell (a
 * login shell, or the shell snapshot where there is one), `shellN: CMD` does that N times in a
 * row (one call per model response), `items: N` answers with N messages in one response, a
 * tool output is answered with `TOOL_RESULT: <last line>`, and
 * any other text with `ECHO: <text>`. The proxy records, per model request, when its headers
 * arrived and when the last response byte was written, so a bench can subtract model time.
 */
import http from 'node:http';
import { importDist } from './paths.mjs';

/** Starts the built test-support scripted model server with the bench script. */
export async function startBenchModel() {
  const ts = await importDist('testSupport');
  /** Commands of this turn so far: tool outputs after the last user message. */
  const outputsThisTurn = (request) => {
    const items = ts.inputItems(request);
    const lastUser = items.findLastIndex((i) => i.role === 'user');
    return items.slice(lastUser + 1).filter((i) => i.type === 'function_call_output').length;
  };
  const shellCall = (cmd) => ({ output: [ts.functionCall('exec_command', { cmd, yield_time_ms: 10_000 })] });
  const handler = (request) => {
    const tail = ts.conversationTail(request);
    const shell = /^shell(\d*): (.*)$/s.exec((ts.lastUserText(request) ?? '').trim());
    if (shell && (tail.kind === 'user' || (tail.kind === 'tool-output' && outputsThisTurn(request) < Number(shell[1] || '1')))) return shellCall(shell[2]);
    if (tail.kind === 'user') {
      const said = tail.text.trim();
      const many = /^items: (\d+)$/.exec(said);
      if (many) return { output: Array.from({ length: Number(many[1]) }, (_, i) => ts.text(`item ${i + 1}`)) };
      if (said.startsWith('run: ')) return { output: [ts.functionCall('exec_command', { cmd: said.slice(5), login: false, yield_time_ms: 10_000 })] };
      return { output: [ts.text(`ECHO: ${said}`)] };
    }
    if (tail.kind === 'tool-output') {
      const lines = tail.output.output.trim().split('\n');
      return { output: [ts.text(`TOOL_RESULT: ${lines[lines.length - 1] ?? ''}`)] };
    }
    return { output: [ts.text('ECHO: (nothing to answer)')] };
  };
  // Not recording: a soak sends tens of thousands of requests, each with its thread's whole history.
  return ts.startScriptedModelServer({ handler, models: ['mock-model'], recordRequests: false });
}

/**
 * A pass-through HTTP proxy to `upstreamUrl` (a `…/v1` base URL). `records` holds one entry per
 * proxied request: `{ path, startMs, endMs }` in `performance.now()` time. `url` is the proxy's
 * own `…/v1` base URL.
 */
export async function startTimingProxy(upstreamUrl) {
  const upstream = new URL(upstreamUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const records = [];
  const server = http.createServer((req, res) => {
    const record = { path: req.url, startMs: performance.now(), endMs: Number.NaN };
    records.push(record);
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host }, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.on('data', (chunk) => res.write(chunk));
        answer.on('end', () => res.end(() => (record.endMs = performance.now())));
      },
    );
    forward.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
    req.pipe(forward);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname.replace(/\/$/, '')}`,
    records,
    /** Sum of model time (request arrival to last byte written) of records[from..]. */
    modelMsSince(from) {
      return records.slice(from).reduce((sum, r) => sum + (r.endMs - r.startMs), 0);
    },
    async close() {
      server.closeAllConnections();
      agent.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
