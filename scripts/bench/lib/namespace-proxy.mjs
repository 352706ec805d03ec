/**
 * A pass-through HTTP proxy in front of the scripted model that turns its flat MCP function
 * calls (`"name":"mcp__SERVER__TOOL"`) into the Responses API's namespaced form
 * (`"name":"TOOL","namespace":"mcp__SERVER__"`) when the request offered that server's tools as a
 * `namespace` tool (as the reference 0.130.0 does; it answers a flat name with "unsupported
 * call"). Other responses pass through unchanged; rewritten ones are buffered (they are small).
 */
import http from 'node:http';

/** Starts the proxy for `upstreamUrl` (a `…/v1` base URL); `url` is its own `…/v1` base URL. */
export async function startNamespaceProxy(upstreamUrl) {
  const upstream = new URL(upstreamUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const server = http.createServer((req, res) => {
    const body = [];
    req.on('data', (chunk) => body.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(body);
      const text = raw.toString('utf8');
      const namespaces = [...text.matchAll(/"type"\s*:\s*"namespace"\s*,\s*"name"\s*:\s*"(mcp__[A-Za-z0-9_-]+?__)"/g)].map((m) => m[1]);
      const forward = http.request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host }, agent },
        (answer) => {
          if (namespaces.length === 0) {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            return;
          }
          const chunks = [];
          answer.on('data', (chunk) => chunks.push(chunk));
          answer.on('end', () => {
            let out = Buffer.concat(chunks).toString('utf8');
            for (const ns of namespaces) out = out.replaceAll(`"name":"${ns}`, `"namespace":"${ns}","name":"`);
            const headers = { ...answer.headers };
            delete headers['content-length'];
            res.writeHead(answer.statusCode ?? 502, headers);
            res.end(out);
          });
        },
      );
      forward.on('error', (error) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(String(error));
      });
      forward.end(raw);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname.replace(/\/$/, '')}`,
    async close() {
      server.closeAllConnections();
      agent.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
