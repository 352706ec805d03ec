/**
 * `deputy mcp add|list|get|remove` end to end: the built CLI against a temp DEPUTY_HOME, checked
 * against the output of Codex 0.130.0's `codex mcp` (tables, JSON shape, messages, exit codes),
 * plus Deputy's refusal to overwrite an entry without --force and its format-preserving edits.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { makeTempHome, type TempHome } from '@deputy/test-support';
import { ensureCliBuilt, runCli } from './cli-process.js';

beforeAll(async () => {
  await ensureCliBuilt();
}, 120_000);

async function freshHome(): Promise<TempHome> {
  const home = await makeTempHome('deputy-mcp-cli-');
  onTestFinished(() => home.cleanup());
  return home;
}

const deputy = (t: TempHome, ...args: string[]) => runCli(args, { home: t.home, cwd: t.cwd });
const configOf = (t: TempHome) => readFile(join(t.home, 'config.toml'), 'utf8');

const COMMENTED = '# my config\nmodel = "o3"  # inline comment\n\n# tables below\n[tui]\nanimations = false\n';

describe('deputy mcp add', () => {
  it('adds stdio and http entries, keeping the comments and layout of the file', async () => {
    const t = await freshHome();
    await writeFile(join(t.home, 'config.toml'), COMMENTED);
    const stdio = await deputy(t, 'mcp', 'add', 'docs', '--env', 'API_KEY=sekrit', '--env', 'FOO=bar', '--', 'npx', '-y', '@foo/server', '--flag', 'a b');
    expect(stdio).toEqual({ code: 0, stdout: "Added global MCP server 'docs'.\n", stderr: '' });
    const http = await deputy(t, 'mcp', 'add', 'remote', '--url', 'http://127.0.0.1:9/mcp', '--bearer-token-env-var', 'MY_TOKEN');
    expect(http).toEqual({ code: 0, stdout: "Added global MCP server 'remote'.\n", stderr: '' });
    expect(await configOf(t)).toBe(
      COMMENTED +
        '\n[mcp_servers]\n\n[mcp_servers.docs]\ncommand = "npx"\nargs = [ "-y", "@foo/server", "--flag", "a b" ]\nenv = { API_KEY = "sekrit", FOO = "bar" }\n' +
        '\n[mcp_servers.remote]\nurl = "http://127.0.0.1:9/mcp"\nbearer_token_env_var = "MY_TOKEN"\n',
    );
  });

  it('creates config.toml when there is none, and takes the command without -- as the reference does', async () => {
    const t = await freshHome();
    // Everything after the command belongs to it, even what looks like an option of `add`.
    expect((await deputy(t, 'mcp', 'add', 's', 'npx', '-y', 'foo', '--env', 'A=B')).code).toBe(0);
    expect(await configOf(t)).toBe('[mcp_servers]\n\n[mcp_servers.s]\ncommand = "npx"\nargs = [ "-y", "foo", "--env", "A=B" ]\n');
  });

  it('refuses a bad name up front (reference message, exit 1) and writes nothing', async () => {
    const t = await freshHome();
    for (const name of ['bad.name', 'bad name', '']) {
      expect(await deputy(t, 'mcp', 'add', name, '--', 'x')).toEqual({ code: 1, stdout: '', stderr: `Error: invalid server name '${name}' (use letters, numbers, '-', '_')\n` });
    }
    expect(await configOf(t).catch(() => null)).toBeNull();
  });

  it('refuses to overwrite an existing entry without --force, and replaces it whole with --force', async () => {
    const t = await freshHome();
    await deputy(t, 'mcp', 'add', 'docs', '--env', 'K=V', '--', 'npx', 'one');
    const before = await configOf(t);
    const refused = await deputy(t, 'mcp', 'add', 'docs', '--', 'other');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`Error: MCP server 'docs' already exists in ${join(t.home, 'config.toml')}; use --force to replace it\n`);
    expect(await configOf(t)).toBe(before);
    expect(await deputy(t, 'mcp', 'add', 'docs', '--force', '--', 'other')).toEqual({ code: 0, stdout: "Added global MCP server 'docs'.\n", stderr: '' });
    expect(await configOf(t)).toBe('[mcp_servers]\n\n[mcp_servers.docs]\ncommand = "other"\n');
  });

  it('exits 2 on usage errors: no transport, both transports, stray http/stdio flags, a bad --env', async () => {
    const t = await freshHome();
    const cases = [
      ['mcp', 'add', 'x'],
      ['mcp', 'add', 'x', '--url', 'http://a', '--', 'cmd'],
      ['mcp', 'add', 'x', '--env', 'A=B', '--url', 'http://a'],
      ['mcp', 'add', 'x', '--bearer-token-env-var', 'T', '--', 'cmd'],
      ['mcp', 'add', 'x', '--env', 'NOEQ', '--', 'cmd'],
      ['mcp', 'add', 'x', '--env', '=v', '--', 'cmd'],
    ];
    for (const args of cases) {
      const result = await deputy(t, ...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).not.toBe('');
    }
    expect(await configOf(t).catch(() => null)).toBeNull();
  });
});

describe('deputy mcp list / get', () => {
  it('says how to add a server when there is none; --json prints []', async () => {
    const t = await freshHome();
    expect(await deputy(t, 'mcp', 'list')).toEqual({ code: 0, stdout: 'No MCP servers configured yet. Try `deputy mcp add my-tool -- my-command`.\n', stderr: '' });
    expect(await deputy(t, 'mcp', 'list', '--json')).toEqual({ code: 0, stdout: '[]\n', stderr: '' });
  });

  it('prints the stdio and the http table (reference layout), secrets masked', async () => {
    const t = await freshHome();
    await deputy(t, 'mcp', 'add', 'docs', '--env', 'API_KEY=sekrit', '--env', 'FOO=bar', '--', 'npx', '-y', '@foo/server', '--flag', 'a b');
    await deputy(t, 'mcp', 'add', 'remote', '--url', 'http://127.0.0.1:9/mcp', '--bearer-token-env-var', 'MY_TOKEN');
    await deputy(t, 'mcp', 'add', 'plain', '--url', 'http://127.0.0.1:9/mcp');
    const list = await deputy(t, 'mcp', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toBe(
      [
        'Name  Command  Args                       Env                       Cwd  Status   Auth       ',
        'docs  npx      -y @foo/server --flag a b  API_KEY=*****, FOO=*****  -    enabled  Unsupported',
        '',
        'Name    Url                     Bearer Token Env Var  Status   Auth        ',
        'plain   http://127.0.0.1:9/mcp  -                     enabled  Unsupported ',
        'remote  http://127.0.0.1:9/mcp  MY_TOKEN              enabled  Bearer token',
        '',
      ].join('\n'),
    );
    expect(list.stdout).not.toContain('sekrit');
  });

  it('list --json and get --json have the reference shape (floats for timeouts, null for absent keys)', async () => {
    const t = await freshHome();
    await writeFile(
      join(t.home, 'config.toml'),
      [
        '[mcp_servers.full]',
        'command = "srv"',
        'cwd = "/tmp/x"',
        'env_vars = ["HOME_X", { name = "REMOTE_Y", source = "remote" }]',
        'env = { Z = "1" }',
        'startup_timeout_sec = 12.5',
        'tool_timeout_sec = 60',
        'enabled_tools = ["a", "b"]',
        'disabled_tools = []',
        '[mcp_servers.hdr]',
        'url = "http://127.0.0.1:9/x"',
        'http_headers = { "X-Api" = "secret", Authorization = "Bearer abc" }',
        'env_http_headers = { "X-Env" = "MY_VAR" }',
        'startup_timeout_ms = 5000',
        '',
      ].join('\n'),
    );
    const list = await deputy(t, 'mcp', 'list', '--json');
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('"tool_timeout_sec": 60.0,\n');
    expect(list.stdout).toContain('"startup_timeout_sec": 5.0,\n');
    expect(JSON.parse(list.stdout)).toEqual([
      {
        name: 'full',
        enabled: true,
        disabled_reason: null,
        transport: { type: 'stdio', command: 'srv', args: [], env: { Z: '1' }, env_vars: ['HOME_X', { name: 'REMOTE_Y', source: 'remote' }], cwd: '/tmp/x' },
        startup_timeout_sec: 12.5,
        tool_timeout_sec: 60,
        auth_status: 'unsupported',
      },
      {
        name: 'hdr',
        enabled: true,
        disabled_reason: null,
        // The Authorization header's value is a bearer token: masked (the reference prints it).
        transport: { type: 'streamable_http', url: 'http://127.0.0.1:9/x', bearer_token_env_var: null, http_headers: { Authorization: '*****', 'X-Api': 'secret' }, env_http_headers: { 'X-Env': 'MY_VAR' } },
        startup_timeout_sec: 5,
        tool_timeout_sec: null,
        auth_status: 'bearer_token',
      },
    ]);
    expect(list.stdout).not.toContain('Bearer abc');

    const get = await deputy(t, 'mcp', 'get', 'full', '--json');
    expect(get.code).toBe(0);
    expect(Object.keys(JSON.parse(get.stdout) as object)).toEqual(['name', 'enabled', 'disabled_reason', 'transport', 'enabled_tools', 'disabled_tools', 'startup_timeout_sec', 'tool_timeout_sec']);
    expect(JSON.parse(get.stdout)).toMatchObject({ enabled_tools: ['a', 'b'], disabled_tools: [], startup_timeout_sec: 12.5 });

    expect((await deputy(t, 'mcp', 'get', 'full')).stdout).toBe(
      [
        'full',
        '  enabled: true',
        '  enabled_tools: a, b',
        '  disabled_tools: []',
        '  transport: stdio',
        '  command: srv',
        '  args: -',
        '  cwd: /tmp/x',
        '  env: Z=*****, HOME_X=*****, REMOTE_Y=*****',
        '  startup_timeout_sec: 12.5',
        '  tool_timeout_sec: 60',
        '  remove: deputy mcp remove full',
        '',
      ].join('\n'),
    );
    expect((await deputy(t, 'mcp', 'get', 'hdr')).stdout).toBe(
      [
        'hdr',
        '  enabled: true',
        '  transport: streamable_http',
        '  url: http://127.0.0.1:9/x',
        '  bearer_token_env_var: -',
        '  http_headers: Authorization=*****, X-Api=*****',
        '  env_http_headers: X-Env=MY_VAR',
        '  startup_timeout_sec: 5',
        '  remove: deputy mcp remove hdr',
        '',
      ].join('\n'),
    );
  });

  it('get: a disabled server is one line; a missing one is an error (exit 1)', async () => {
    const t = await freshHome();
    await writeFile(join(t.home, 'config.toml'), '[mcp_servers.off]\ncommand = "srv"\nenabled = false\n');
    expect(await deputy(t, 'mcp', 'get', 'off')).toEqual({ code: 0, stdout: 'off (disabled)\n', stderr: '' });
    expect((await deputy(t, 'mcp', 'list')).stdout).toContain('off   srv      -     -    -    disabled  Unsupported');
    expect(await deputy(t, 'mcp', 'get', 'nope')).toEqual({ code: 1, stdout: '', stderr: "Error: No MCP server named 'nope' found.\n" });
  });

  it('shows -c overrides, given before or after the subcommand', async () => {
    const t = await freshHome();
    const over = await deputy(t, 'mcp', '-c', 'mcp_servers.tmp.command="srv"', 'list', '--json');
    expect(JSON.parse(over.stdout)).toMatchObject([{ name: 'tmp', transport: { command: 'srv' } }]);
    const after = await deputy(t, 'mcp', 'get', 'tmp', '-c', 'mcp_servers.tmp.command="srv"');
    expect(after.code).toBe(0);
    expect(after.stdout.split('\n')[0]).toBe('tmp');
  });
});

describe('deputy mcp remove', () => {
  it('removes an entry, keeping the rest of the file; a missing name is not an error', async () => {
    const t = await freshHome();
    await writeFile(join(t.home, 'config.toml'), COMMENTED);
    await deputy(t, 'mcp', 'add', 'docs', '--', 'npx');
    await deputy(t, 'mcp', 'add', 'plain', '--url', 'http://127.0.0.1:9/mcp');
    expect(await deputy(t, 'mcp', 'remove', 'plain')).toEqual({ code: 0, stdout: "Removed global MCP server 'plain'.\n", stderr: '' });
    expect(await configOf(t)).toBe(`${COMMENTED}\n[mcp_servers]\n\n[mcp_servers.docs]\ncommand = "npx"\n`);
    expect(await deputy(t, 'mcp', 'remove', 'plain')).toEqual({ code: 0, stdout: "No MCP server named 'plain' found.\n", stderr: '' });
    expect(await deputy(t, 'mcp', 'remove', 'bad name')).toEqual({ code: 1, stdout: '', stderr: "Error: invalid server name 'bad name' (use letters, numbers, '-', '_')\n" });
  });
});
