/**
 * `deputy` end to end: the built CLI in a child process against the real scripted model server
 * (or the built-in offline demo), checking exit codes, what goes to stdout and stderr, stdin
 * prompts, `exec resume`, and the usage errors that must not reach the model.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { DEPUTY_VERSION } from '@deputy/engine';
import { functionCall, lastUserText, makeTempHome, startScriptedModelServer, text, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { ensureCliBuilt, runCli } from './cli-process.js';

let server: ScriptedModelServer;
let temp: TempHome;

beforeAll(async () => {
  await ensureCliBuilt();
  server = await startScriptedModelServer();
}, 120_000);
afterAll(async () => {
  await server?.close();
});
/** A fresh home and workspace for one test, removed when it finishes (safe in concurrent tests). */
async function freshHome(finished: typeof onTestFinished = onTestFinished): Promise<TempHome> {
  const home = await makeTempHome('deputy-cli-');
  finished(() => home.cleanup());
  return home;
}

/** Writes a config.toml that points at the scripted server. */
async function writeConfig(extra = '', target: TempHome = temp): Promise<void> {
  const toml = [
    'model = "gpt-5.2-codex"',
    'model_provider = "mock"',
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
    extra,
    '[model_providers.mock]',
    'name = "Mock"',
    `base_url = "${server.url}"`,
    'request_max_retries = 0',
    'stream_max_retries = 0',
  ].join('\n');
  await writeFile(join(target.home, 'config.toml'), toml);
}

const opts = (t: TempHome = temp) => ({ home: t.home, cwd: t.cwd });
const modelRequests = () => server.requests.filter((r) => r.wire === 'responses');
const threadIdOf = (stderr: string) => /deputy: thread (\S+)/.exec(stderr)?.[1];

describe.concurrent('deputy', () => {
  it('prints its version', async ({ onTestFinished: finished }) => {
    const result = await runCli(['--version'], opts(await freshHome(finished)));
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${DEPUTY_VERSION}\n`);
  });

  it('prints help for the program and for exec', async ({ onTestFinished: finished }) => {
    const t = await freshHome(finished);
    const top = await runCli(['--help'], opts(t));
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/Usage: deputy/);
    expect(top.stdout).toMatch(/exec/);
    const exec = await runCli(['exec', '--help'], opts(t));
    expect(exec.code).toBe(0);
    expect(exec.stdout).toMatch(/--json/);
    expect(exec.stdout).toMatch(/--skip-git-repo-check/);
    expect(exec.stdout).toMatch(/resume/);
  });
});

describe.concurrent('usage and start errors exit 2 or 1 without asking the model', () => {
  /** A home whose config points at the scripted server. */
  async function configured(finished: typeof onTestFinished, extra = ''): Promise<TempHome> {
    const t = await freshHome(finished);
    await writeConfig(extra, t);
    return t;
  }
  afterAll(() => expect(modelRequests()).toEqual([]));

  it('rejects a missing prompt (empty stdin) as codex exec does', async ({ onTestFinished: finished }) => {
    const result = await runCli(['exec'], opts(await configured(finished)));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Reading prompt from stdin...\nNo prompt provided via stdin.\n/);
  });

  it('refuses to run outside a git repository without --skip-git-repo-check', async ({ onTestFinished: finished }) => {
    const result = await runCli(['exec', 'hi'], { ...opts(await configured(finished)), gitRepoCheck: true });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Not inside a trusted directory and --skip-git-repo-check was not specified.\n/);
  });

  it('rejects a bad --sandbox value', async ({ onTestFinished: finished }) => {
    const result = await runCli(['exec', '--sandbox', 'sometimes', 'hi'], opts(await configured(finished)));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/sometimes/);
    expect(result.stderr).toMatch(/read-only, workspace-write, danger-full-access/);
  });

  // Config errors as `codex exec` 0.130 reports them (captured with the reference binary, each
  // with exit status 1 and nothing on stdout):
  //   invalid TOML          Error loading config.toml:\n<path>:1:9: string values must be quoted, …
  //   a bad value           Error loading config.toml: unknown variant `sometimes`, expected one of …\nin `approval_policy`
  //   -c approval_policy=sometimes   the same line as a bad value in the file
  //   -c noequals           Error parsing -c overrides: Invalid override (missing '='): noequals
  //   -p nope               Error: config profile `nope` not found
  // Deputy keeps the prefix and the status and puts its own detail after it (docs/exec.md).
  it('rejects a bad config value as codex exec does, naming the file and the key', async ({ onTestFinished: finished }) => {
    const t = await configured(finished, 'approval_policy_x = 1\nmodel_reasoning_effort = "enormous"');
    const result = await runCli(['exec', 'hi'], opts(t));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Error loading config.toml: /);
    expect(result.stderr).toContain(join(t.home, 'config.toml'));
    expect(result.stderr).toMatch(/model_reasoning_effort: expected one of .*got "enormous"/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('rejects config.toml that does not parse, with the line', async ({ onTestFinished: finished }) => {
    const t = await freshHome(finished);
    await writeFile(join(t.home, 'config.toml'), 'model = \n');
    const result = await runCli(['exec', 'hi'], opts(t));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error loading config.toml: /);
    expect(result.stderr).toContain(`${join(t.home, 'config.toml')}:1:`);
  });

  it('rejects a bad -c override, naming the override', async ({ onTestFinished: finished }) => {
    const result = await runCli(['exec', '-c', 'approval_policy="sometimes"', 'hi'], opts(await configured(finished)));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error loading config.toml: -c approval_policy="sometimes": approval_policy: expected one of/);
  });

  it('rejects a -c without = in the reference words', async ({ onTestFinished: finished }) => {
    const result = await runCli(['exec', '-c', 'noequals', 'hi'], opts(await configured(finished)));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error parsing -c overrides: Invalid override \(missing '='\): noequals\ndeputy: -c noequals: expected key=value/);
  });

  it('rejects an unknown profile in the reference words', async ({ onTestFinished: finished }) => {
    const t = await configured(finished);
    const result = await runCli(['exec', '-p', 'nope', 'hi'], opts(t));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: config profile `nope` not found\ndeputy: --profile nope: no \[profiles.nope\] table/);
  });

  it('rejects a working directory that does not exist', async ({ onTestFinished: finished }) => {
    const t = await configured(finished);
    const result = await runCli(['exec', '-C', join(t.cwd, 'missing'), 'hi'], opts(t));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: No such file or directory \(os error 2\)\n/);
    expect(result.stderr).toContain(join(t.cwd, 'missing'));
  });

  it('rejects resuming a thread that does not exist', async ({ onTestFinished: finished }) => {
    const result = await runCli(['exec', 'resume', '01900000-0000-7000-8000-000000000000', 'hi'], opts(await configured(finished)));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/01900000-0000-7000-8000-000000000000/);
  });

  it('rejects an empty prompt from stdin', async ({ onTestFinished: finished }) => {
    const result = await runCli(['exec', '-'], { ...opts(await configured(finished)), stdin: '  \n' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/No prompt provided via stdin/);
  });
});

describe('deputy exec', () => {
  beforeEach(async () => {
    temp = await freshHome();
    server.requests.length = 0;
    await writeConfig();
  });
  afterEach(() => expect(server.pendingSteps()).toBe(0));

  it('prints the final answer on stdout and exits 0', async () => {
    server.enqueue({ output: [text('the final answer')] });
    const result = await runCli(['exec', 'a question'], opts());
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('the final answer\n');
    expect(threadIdOf(result.stderr)).toBeDefined();
    expect(lastUserText(server.requests[0]!)).toBe('a question');
  });

  it('exits 1 with a readable error when the turn fails (401)', async () => {
    server.enqueue({ fault: 'http', status: 401 });
    const result = await runCli(['exec', 'hi'], opts());
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/turn failed: .*(API key|unauthori)/i);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("prints only Deputy's engine events on stdout with --engine-json", async () => {
    server.enqueue({ output: [text('json answer')] });
    const result = await runCli(['exec', '--engine-json', 'hi'], opts());
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const events = lines.map((line) => JSON.parse(line) as { type: string; threadId: string; seq: number; item?: { type: string; text?: string } });
    expect(events[0]!.type).toBe('turn.started');
    expect(events.at(-1)!.type).toBe('turn.completed');
    expect(new Set(events.map((e) => e.threadId)).size).toBe(1);
    expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((a, b) => a - b));
    expect(events.some((e) => e.type === 'item.completed' && e.item?.type === 'agentMessage' && e.item.text === 'json answer')).toBe(true);
  });

  it('reads the prompt from stdin when PROMPT is -', async () => {
    server.enqueue({ output: [text('read it')] });
    const result = await runCli(['exec', '-'], { ...opts(), stdin: 'a prompt\nover two lines\n' });
    expect(result.code).toBe(0);
    expect(lastUserText(server.requests[0]!)).toBe('a prompt\nover two lines');
  });

  it('continues the most recent thread with exec resume --last, options after resume included', async () => {
    server.enqueue({ output: [text('first reply')] }, { output: [text('second reply')] });
    const first = await runCli(['exec', 'remember the word PAPAYA'], opts());
    expect(first.code).toBe(0);
    const second = await runCli(['exec', 'resume', '--engine-json', '--last', 'what was the word?'], opts());
    expect(second.code).toBe(0);
    const events = second.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { threadId: string; type: string });
    expect(events.at(-1)!.type).toBe('turn.completed');
    expect(events[0]!.threadId).toBe(threadIdOf(first.stderr));
    const body = JSON.stringify(server.requests[1]!.body.input);
    expect(body).toContain('remember the word PAPAYA');
    expect(body).toContain('first reply');
    expect(lastUserText(server.requests[1]!)).toBe('what was the word?');
  });

  it('starts no login shell for a turn without a command, and takes the snapshot from the first command on', async () => {
    // A login shell appends a line to profile-runs; the workspace is the user's home.
    const runs = join(temp.cwd, 'profile-runs');
    await writeFile(join(temp.cwd, '.bash_profile'), `echo run >> ${runs}\n`);
    const env = { HOME: temp.cwd, SHELL: '/bin/bash' };
    server.enqueue({ output: [text('no command')] });
    const plain = await runCli(['exec', 'just answer'], { ...opts(), env });
    expect(plain.code).toBe(0);
    await expect(readFile(runs, 'utf8')).rejects.toThrow(/ENOENT/);
    // The first command runs in a login shell while the snapshot is taken (a second login shell);
    // the second waits (in a login shell again) until the snapshot file exists; the third sources
    // it, so the profile runs three times in all, not four.
    const waitForSnapshot = `for i in $(seq 200); do ls ${join(temp.home, 'shell_snapshots')}/*.sh >/dev/null 2>&1 && break; sleep 0.05; done; echo second`;
    server.enqueue(
      { output: [functionCall('exec_command', { cmd: 'echo first' })] },
      { output: [functionCall('exec_command', { cmd: waitForSnapshot })] },
      { output: [functionCall('exec_command', { cmd: 'echo third' })] },
      { output: [text('ran three')] },
    );
    const commands = await runCli(['exec', 'run three commands'], { ...opts(), env }, 30_000);
    expect(commands.code, commands.stderr).toBe(0);
    expect(commands.stdout).toBe('ran three\n');
    expect((await readFile(runs, 'utf8')).trim().split('\n')).toEqual(['run', 'run', 'run']);
  });

  it('resumes a thread by id with a new model', async () => {
    server.enqueue({ output: [text('one')] }, { output: [text('two')] });
    const first = await runCli(['exec', 'hello'], opts());
    const id = threadIdOf(first.stderr)!;
    const second = await runCli(['exec', 'resume', id, '-m', 'gpt-5.2', 'again'], opts());
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('two\n');
    expect(server.requests[1]!.body.model).toBe('gpt-5.2');
  });
});

describe('the offline demo', () => {
  it('runs a real turn without a key or a provider and answers from the real ls output', async () => {
    temp = await freshHome();
    await writeFile(join(temp.cwd, 'notes-for-demo.txt'), 'hello');
    await mkdir(join(temp.cwd, 'src-folder'));
    const result = await runCli(['exec', 'what is in this folder?'], opts(), 20_000);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/offline demo/);
    expect(result.stdout).toContain('notes-for-demo.txt');
    expect(result.stdout).toContain('src-folder');
    expect(result.stdout).toMatch(/2 entries/);
    expect(result.stderr).toMatch(/ls -la/);
  });
});
