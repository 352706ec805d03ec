/**
 * `deputy mcp add|list|get|remove|login|logout`: manages the `[mcp_servers.<name>]` entries of
 * `$DEPUTY_HOME/config.toml` with the output, messages and exit codes of Codex's `codex mcp`.
 * `add` and `remove` edit the file through the engine's format-preserving writer (comments and
 * layout stay; the reference rewrites the whole `mcp_servers` section). `list` and `get` show the
 * effective config (file, profile, `-c`). Secrets: `env` and header values show as `*****` in the
 * tables; bearer tokens are only ever named by their variable. Exit codes: 0 ok, 1 an `Error:`
 * (as the reference), 2 usage errors (raised by mcp-command.ts). `login` and `logout` are the
 * OAuth of Streamable HTTP servers (docs/mcp-client.md "OAuth"); tokens are never printed.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { loadConfig, McpOAuth, resolveHome, writeUserConfig, type ResolvedConfig } from '@deputy/engine';
import { displayText } from '@deputy/protocol';

/** Options of `deputy mcp` that every subcommand sees. */
export interface McpGlobalOptions {
  config: string[];
  enable: string[];
  disable: string[];
}

/** Options of `deputy mcp add`. */
export interface McpAddOptions {
  /** The command and its arguments (empty with `--url`). */
  command: string[];
  env: [string, string][];
  url?: string;
  bearerTokenEnvVar?: string;
  force: boolean;
}

/** A failure reported as `Error: <message>` with exit code 1, as the reference does. */
class McpCliError extends Error {}

const SERVER_NAME = /^[A-Za-z0-9_-]+$/;
const MASK = '*****';

function validateServerName(name: string): void {
  if (!SERVER_NAME.test(name)) throw new McpCliError(`invalid server name '${name}' (use letters, numbers, '-', '_')`);
}

/** Runs one subcommand body: prints `Error: …` and returns 1 on failure. */
async function run(body: () => Promise<void>): Promise<number> {
  try {
    await body();
    return 0;
  } catch (error) {
    process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

async function load(globals: McpGlobalOptions): Promise<ResolvedConfig> {
  const overrides = [...globals.config, ...globals.enable.map((f) => `features.${f}=true`), ...globals.disable.map((f) => `features.${f}=false`)];
  return await loadConfig({ home: resolveHome(process.env), cwd: process.cwd(), overrides, env: process.env });
}

/** True when the user's config.toml itself has `[mcp_servers.<name>]` (what add and remove edit). */
function isInFile(config: ResolvedConfig, name: string): boolean {
  const servers = asTable(config.sources.fileTable.mcp_servers);
  return servers !== undefined && Object.hasOwn(servers, name);
}

const print = (line = '') => process.stdout.write(`${line}\n`);

/** `deputy mcp add`: adds (or with `--force` replaces) one entry in the user's config.toml. */
export async function runMcpAdd(globals: McpGlobalOptions, name: string, options: McpAddOptions): Promise<number> {
  return await run(async () => {
    validateServerName(name);
    const config = await load(globals);
    // BETTER than the reference, which replaces an existing entry silently.
    if (isInFile(config, name) && !options.force) {
      throw new McpCliError(`MCP server '${name}' already exists in ${config.configPath}; use --force to replace it`);
    }
    const entry: Record<string, unknown> = {};
    if (options.url !== undefined) {
      entry.url = options.url;
      if (options.bearerTokenEnvVar !== undefined) entry.bearer_token_env_var = options.bearerTokenEnvVar;
    } else {
      const [command, ...args] = options.command;
      entry.command = command;
      if (args.length > 0) entry.args = args;
      if (options.env.length > 0) entry.env = Object.fromEntries(options.env);
    }
    await writeUserConfig(config, { edits: [{ keyPath: `mcp_servers.${name}`, value: entry, mergeStrategy: 'replace' }], versionOf: () => '', tableSectionDepth: 2 });
    print(`Added global MCP server '${name}'.`);
  });
}

/** `deputy mcp remove`: removing a name that is not configured is not an error (reference). */
export async function runMcpRemove(globals: McpGlobalOptions, name: string): Promise<number> {
  return await run(async () => {
    validateServerName(name);
    const config = await load(globals);
    if (!isInFile(config, name)) {
      print(`No MCP server named '${name}' found.`);
      return;
    }
    await writeUserConfig(config, { edits: [{ keyPath: `mcp_servers.${name}`, value: null, mergeStrategy: 'replace' }], versionOf: () => '' });
    print(`Removed global MCP server '${name}'.`);
  });
}

/** The OAuth side of MCP for `config`. */
function oauthOf(config: ResolvedConfig): McpOAuth {
  return new McpOAuth({ home: config.home, credentialsStore: config.mcpOAuth.credentialsStore, callbackPort: config.mcpOAuth.callbackPort, callbackUrl: config.mcpOAuth.callbackUrl });
}

/** A configured HTTP server by name, or the reference's errors. */
function oauthServer(config: ResolvedConfig, name: string): ResolvedConfig['mcpServerConfigs'][number] {
  const server = config.mcpServerConfigs.find((c) => c.name === name);
  if (!server) throw new McpCliError(`No MCP server named '${name}' found.`);
  if (server.transport.type !== 'http') throw new McpCliError('OAuth login is only supported for streamable HTTP servers.');
  return server;
}

/**
 * `deputy mcp login <name> [--scopes a,b]`: prints the authorization URL (and opens a browser
 * when one is available), waits for the callback (300 s), stores the tokens. Ctrl-C cancels.
 */
export async function runMcpLogin(globals: McpGlobalOptions, name: string, scopes: string[] | null): Promise<number> {
  return await run(async () => {
    const config = await load(globals);
    const server = oauthServer(config, name);
    const login = await oauthOf(config).login(server, { scopes });
    print(`Authorize Deputy to use MCP server '${name}': open this URL in your browser:`);
    // The URL comes from the server's metadata: shown neutralised, opened as it is.
    print(displayText(login.authorizationUrl));
    print(`Waiting for the browser to return to ${login.redirectUrl} ...`);
    openBrowser(login.authorizationUrl);
    const onSignal = (): void => login.cancel('cancelled');
    process.once('SIGINT', onSignal);
    const outcome = await login.done.finally(() => process.off('SIGINT', onSignal));
    if (!outcome.success) throw new McpCliError(`OAuth login for MCP server '${name}' failed: ${outcome.error}`);
    print(`Successfully logged in to MCP server '${name}'.`);
  });
}

/** `deputy mcp logout <name>`: deletes the stored tokens, revoking them where the server offers revocation. */
export async function runMcpLogout(globals: McpGlobalOptions, name: string): Promise<number> {
  return await run(async () => {
    const config = await load(globals);
    const server = oauthServer(config, name);
    const result = await oauthOf(config).logout(server);
    if (!result.removed) throw new McpCliError(`No OAuth credentials stored for MCP server '${name}'.`);
    print(`Removed OAuth credentials for MCP server '${name}'.`);
    if (result.revoked) print('The tokens were revoked at the authorization server.');
    else if (result.revocationNote !== null) print(`The tokens were not revoked: ${displayText(result.revocationNote)}.`);
  });
}

/** Opens `url` with `open` (macOS) or `xdg-open` (with a display) when present; never fails. */
function openBrowser(url: string): void {
  const opener = process.platform === 'darwin' ? 'open' : process.env.DISPLAY || process.env.WAYLAND_DISPLAY ? 'xdg-open' : null;
  if (opener === null || !onPath(opener)) return;
  try {
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No browser: the printed URL is enough.
  }
}

function onPath(program: string): boolean {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(path.join(dir, program), constants.X_OK);
      return true;
    } catch {
      // Not here.
    }
  }
  return false;
}

/** `deputy mcp list [--json]`: two tables (stdio, then Streamable HTTP), sorted by name. */
export async function runMcpList(globals: McpGlobalOptions, json: boolean): Promise<number> {
  return await run(async () => {
    const config = await load(globals);
    const servers = Object.keys(config.mcpServers)
      .sort(byCodeUnit)
      .map((name) => describeServer(name, config.mcpServers[name] ?? {}));
    await markOAuth(config, servers);
    if (json) {
      const entries = servers.map((s) => ({
        name: s.name,
        enabled: s.enabled,
        disabled_reason: null,
        transport: transportJson(s.transport),
        startup_timeout_sec: s.startupTimeoutSec,
        tool_timeout_sec: s.toolTimeoutSec,
        auth_status: s.authStatus,
      }));
      print(toJson(entries));
      return;
    }
    if (servers.length === 0) {
      print('No MCP servers configured yet. Try `deputy mcp add my-tool -- my-command`.');
      return;
    }
    const status = (s: ServerView) => (s.enabled ? 'enabled' : 'disabled');
    const stdio: string[][] = [];
    const http: string[][] = [];
    for (const s of servers) {
      const t = s.transport;
      if (t.type === 'stdio') stdio.push([s.name, t.command, joinOrDash(t.args), envDisplay(t), t.cwd ?? '-', status(s), AUTH_LABELS[s.authStatus]]);
      else http.push([s.name, t.url, t.bearerTokenEnvVar ?? '-', status(s), AUTH_LABELS[s.authStatus]]);
    }
    if (stdio.length > 0) printTable(['Name', 'Command', 'Args', 'Env', 'Cwd', 'Status', 'Auth'], stdio);
    if (stdio.length > 0 && http.length > 0) print();
    if (http.length > 0) printTable(['Name', 'Url', 'Bearer Token Env Var', 'Status', 'Auth'], http);
  });
}

/** `deputy mcp get <name> [--json]`. */
export async function runMcpGet(globals: McpGlobalOptions, name: string, json: boolean): Promise<number> {
  return await run(async () => {
    const config = await load(globals);
    const raw = Object.hasOwn(config.mcpServers, name) ? config.mcpServers[name] : undefined;
    if (raw === undefined) throw new McpCliError(`No MCP server named '${name}' found.`);
    const s = describeServer(name, raw);
    if (json) {
      print(
        toJson({
          name,
          enabled: s.enabled,
          disabled_reason: null,
          transport: transportJson(s.transport),
          enabled_tools: s.enabledTools,
          disabled_tools: s.disabledTools,
          startup_timeout_sec: s.startupTimeoutSec,
          tool_timeout_sec: s.toolTimeoutSec,
        }),
      );
      return;
    }
    if (!s.enabled) {
      print(`${name} (disabled)`);
      return;
    }
    const toolList = (tools: string[]) => (tools.length === 0 ? '[]' : tools.join(', '));
    const lines = [name, `  enabled: ${String(s.enabled)}`];
    if (s.enabledTools !== null) lines.push(`  enabled_tools: ${toolList(s.enabledTools)}`);
    if (s.disabledTools !== null) lines.push(`  disabled_tools: ${toolList(s.disabledTools)}`);
    const t = s.transport;
    if (t.type === 'stdio') {
      lines.push('  transport: stdio', `  command: ${t.command}`, `  args: ${joinOrDash(t.args)}`, `  cwd: ${t.cwd ?? '-'}`, `  env: ${envDisplay(t)}`);
    } else {
      const headers = t.httpHeaders === null ? [] : sortedEntries(t.httpHeaders).map(([k]) => `${k}=${MASK}`);
      const envHeaders = t.envHttpHeaders === null ? [] : sortedEntries(t.envHttpHeaders).map(([k, v]) => `${k}=${v}`);
      lines.push(
        '  transport: streamable_http',
        `  url: ${t.url}`,
        `  bearer_token_env_var: ${t.bearerTokenEnvVar ?? '-'}`,
        `  http_headers: ${headers.length > 0 ? headers.join(', ') : '-'}`,
        `  env_http_headers: ${envHeaders.length > 0 ? envHeaders.join(', ') : '-'}`,
      );
    }
    if (s.startupTimeoutSec !== null) lines.push(`  startup_timeout_sec: ${String(s.startupTimeoutSec)}`);
    if (s.toolTimeoutSec !== null) lines.push(`  tool_timeout_sec: ${String(s.toolTimeoutSec)}`);
    lines.push(`  remove: deputy mcp remove ${name}`);
    for (const line of lines) print(line);
  });
}

// ---------------------------------------------------------------------------------------------
// The view of one `[mcp_servers.<name>]` table. The engine's MCP config module owns validation;
// this reads the raw table leniently so that `list` and `get` show what is written.

type AuthStatus = 'unsupported' | 'bearer_token' | 'o_auth';
const AUTH_LABELS: Record<AuthStatus, string> = { unsupported: 'Unsupported', bearer_token: 'Bearer token', o_auth: 'OAuth' };

/**
 * Marks the HTTP servers that have stored OAuth tokens (`OAuth`). Whether a server without tokens
 * offers OAuth (the reference's "Not logged in") needs the network and is not probed here.
 */
async function markOAuth(config: ResolvedConfig, servers: ServerView[]): Promise<void> {
  const store = oauthOf(config).store;
  for (const s of servers) {
    if (s.transport.type !== 'streamable_http' || s.authStatus !== 'unsupported') continue;
    if ((await store.load(s.name, s.transport.url))?.tokens) s.authStatus = 'o_auth';
  }
}

type EnvVarEntry = string | { name: string; source?: string };

type TransportView =
  | { type: 'stdio'; command: string; args: string[]; env: Record<string, string> | null; envVars: EnvVarEntry[]; cwd: string | null }
  | {
      type: 'streamable_http';
      url: string;
      bearerTokenEnvVar: string | null;
      httpHeaders: Record<string, string> | null;
      envHttpHeaders: Record<string, string> | null;
    };

interface ServerView {
  name: string;
  enabled: boolean;
  transport: TransportView;
  enabledTools: string[] | null;
  disabledTools: string[] | null;
  startupTimeoutSec: number | null;
  toolTimeoutSec: number | null;
  authStatus: AuthStatus;
}

function describeServer(name: string, raw: Record<string, unknown>): ServerView {
  let transport: TransportView;
  if (typeof raw.url === 'string') {
    transport = {
      type: 'streamable_http',
      url: raw.url,
      bearerTokenEnvVar: stringOrNull(raw.bearer_token_env_var),
      httpHeaders: stringMap(raw.http_headers),
      envHttpHeaders: stringMap(raw.env_http_headers),
    };
  } else if (typeof raw.command === 'string') {
    transport = {
      type: 'stdio',
      command: raw.command,
      args: stringList(raw.args) ?? [],
      env: stringMap(raw.env),
      envVars: Array.isArray(raw.env_vars) ? (raw.env_vars as EnvVarEntry[]) : [],
      cwd: stringOrNull(raw.cwd) || null,
    };
  } else {
    throw new McpCliError(`mcp_servers.${name}: invalid transport (set command or url)`);
  }
  const startupMs = typeof raw.startup_timeout_ms === 'number' ? raw.startup_timeout_ms / 1000 : null;
  return {
    name,
    enabled: raw.enabled !== false,
    transport,
    enabledTools: stringList(raw.enabled_tools),
    disabledTools: stringList(raw.disabled_tools),
    startupTimeoutSec: typeof raw.startup_timeout_sec === 'number' ? raw.startup_timeout_sec : startupMs,
    toolTimeoutSec: typeof raw.tool_timeout_sec === 'number' ? raw.tool_timeout_sec : null,
    authStatus: authStatusOf(transport),
  };
}

/**
 * stdio servers have no auth; an HTTP server with a bearer variable or an `Authorization`
 * header uses a bearer token. The reference also probes the server for OAuth support; this
 * does not touch the network, so such a server shows as unsupported.
 */
function authStatusOf(t: TransportView): AuthStatus {
  if (t.type === 'stdio') return 'unsupported';
  if (t.bearerTokenEnvVar !== null) return 'bearer_token';
  const headers = [...Object.keys(t.httpHeaders ?? {}), ...Object.keys(t.envHttpHeaders ?? {})];
  return headers.some((h) => h.toLowerCase() === 'authorization') ? 'bearer_token' : 'unsupported';
}

/** The reference's JSON shape of a transport (snake_case keys, `null` for absent values). */
function transportJson(t: TransportView): Record<string, unknown> {
  if (t.type === 'stdio') return { type: 'stdio', command: t.command, args: t.args, env: sortedObject(t.env), env_vars: t.envVars, cwd: t.cwd };
  // The value of an Authorization header is a bearer token: never printed.
  const headers = t.httpHeaders === null ? null : Object.fromEntries(sortedEntries(t.httpHeaders).map(([k, v]) => [k, k.toLowerCase() === 'authorization' ? MASK : v]));
  return { type: 'streamable_http', url: t.url, bearer_token_env_var: t.bearerTokenEnvVar, http_headers: headers, env_http_headers: sortedObject(t.envHttpHeaders) };
}

/** `KEY=*****` for each `env` key (sorted), then each `env_vars` name, or `-`. */
function envDisplay(t: Extract<TransportView, { type: 'stdio' }>): string {
  const names = [...(t.env === null ? [] : sortedEntries(t.env).map(([k]) => k)), ...t.envVars.map((v) => (typeof v === 'string' ? v : v.name))];
  return names.length === 0 ? '-' : names.map((n) => `${n}=${MASK}`).join(', ');
}

/** Columns separated by two spaces, each padded to its widest cell (the last one too). */
function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  for (const row of [header, ...rows]) print(row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  '));
}

/** Pretty JSON as serde_json prints it: timeouts are floats (`60.0`). */
function toJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/^(\s*"(?:startup|tool)_timeout_sec": -?\d+)(,?)$/gm, '$1.0$2');
}

const joinOrDash = (items: string[]) => (items.length === 0 ? '-' : items.join(' '));
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const sortedEntries = (map: Record<string, string>) => Object.entries(map).sort(([a], [b]) => byCodeUnit(a, b));
const sortedObject = (map: Record<string, string> | null) => (map === null ? null : Object.fromEntries(sortedEntries(map)));
const stringOrNull = (value: unknown) => (typeof value === 'string' ? value : null);

function asTable(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function stringList(value: unknown): string[] | null {
  return Array.isArray(value) ? value.map(String) : null;
}

function stringMap(value: unknown): Record<string, string> | null {
  const table = asTable(value);
  return table === undefined ? null : Object.fromEntries(Object.entries(table).map(([k, v]) => [k, String(v)]));
}
