/**
 * Hooks over the app-server with the scripted model (docs/extensions.md "Hooks"): a trusted
 * PreToolUse hook blocks one command and lets another run (checked on the host), an untrusted or
 * modified hook never runs, a hook that hangs is killed at its timeout while the turn goes on,
 * hooks get the shell tools' environment (no secrets), and every `hook/started` /
 * `hook/completed` matches both reference schemas (0.130 through the harness, 0.171 here). That
 * hooks run under their thread's sandbox is checked by the escape suite,
 * test/escape/hooks-sandbox.test.ts, which also runs as an unprivileged uid.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harnessPerTest, isolateUserHome } from './support/harness.js';
import { problemsAgainstDefinition } from '../../../packages/protocol/test/support/reference-schema.js';
import { hookRuns, listHooks, trustAll } from './support/hooks.js';
import { runTurn, startThread } from './support/turns.js';

const harness = harnessPerTest();

/** A PreToolUse matcher group on `Bash` running `command` (config.toml form). */
function preToolUseToml(command: string, timeout = 10): string {
  return `\n[[hooks.PreToolUse]]\nmatcher = "^Bash$"\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = ${JSON.stringify(command)}\ntimeout = ${timeout}\n`;
}

function lastToolOutput(requests: Array<{ wire: string; body: { input?: unknown } }>): string {
  const input = (requests.filter((r) => r.wire === 'responses').at(-1)?.body.input ?? []) as Array<{ type: string; output?: unknown }>;
  const out = input.filter((i) => i.type === 'function_call_output').at(-1)?.output;
  return typeof out === 'string' ? out : JSON.stringify(out);
}

const savedSecret = process.env.DEPUTY_HOOK_TEST_SECRET_TOKEN;
afterEach(() => {
  if (savedSecret === undefined) delete process.env.DEPUTY_HOOK_TEST_SECRET_TOKEN;
  else process.env.DEPUTY_HOOK_TEST_SECRET_TOKEN = savedSecret;
});
// Commands run in a login shell: an empty HOME keeps the host's shell start-up files out of them.
isolateUserHome();

describe('PreToolUse hooks', () => {
  it('a trusted hook blocks one command (it never runs) and lets another run', async () => {
    const server = await harness({ extraToml: preToolUseToml('grep -q forbidden && { echo "forbidden files are off limits" >&2; exit 2; }; exit 0') });
    const client = await server.connect();
    const [listed] = await listHooks(client, server.temp.cwd);
    expect(listed).toMatchObject({ eventName: 'preToolUse', trustStatus: 'untrusted' });
    await trustAll(client, server.temp.cwd);
    expect((await listHooks(client, server.temp.cwd))[0]?.trustStatus).toBe('trusted');

    const { id } = await startThread(client, { cwd: server.temp.cwd });
    await runTurn(client, id, 'run: touch forbidden.txt');
    expect(existsSync(join(server.temp.cwd, 'forbidden.txt'))).toBe(false);
    expect(lastToolOutput(server.model.requests)).toBe('Command blocked by PreToolUse hook: forbidden files are off limits');

    await runTurn(client, id, 'run: touch allowed.txt');
    expect(existsSync(join(server.temp.cwd, 'allowed.txt'))).toBe(true);

    const started = hookRuns(client, 'hook/started');
    const completed = hookRuns(client, 'hook/completed');
    expect(started.map((r) => [r.eventName, r.status])).toEqual([['preToolUse', 'running'], ['preToolUse', 'running']]);
    expect(completed.map((r) => r.status)).toEqual(['blocked', 'completed']);
    expect(completed[0]?.entries).toEqual([{ kind: 'feedback', text: 'forbidden files are off limits' }]);
  });

  it('an untrusted hook does not run, and a trusted hook whose file changed is untrusted again', async () => {
    const server = await harness();
    const marker = join(server.temp.home, 'hook-ran');
    const hooksJson = join(server.temp.home, 'hooks.json');
    const define = (command: string) => writeFile(hooksJson, JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }] } }));
    await define(`touch ${marker}`);
    const client = await server.connect();
    const { id } = await startThread(client, { cwd: server.temp.cwd });
    await runTurn(client, id, 'run: echo one');
    expect(existsSync(marker)).toBe(false);
    expect(hookRuns(client, 'hook/started')).toEqual([]);

    await trustAll(client, server.temp.cwd);
    await define(`touch ${marker} # edited`);
    expect((await listHooks(client, server.temp.cwd))[0]?.trustStatus).toBe('modified');
    await runTurn(client, id, 'run: echo two');
    expect(existsSync(marker)).toBe(false);
    expect(hookRuns(client, 'hook/started')).toEqual([]);
  });
});

describe('hook processes', () => {
  it('kills a hook that hangs at its timeout, and the turn goes on', async () => {
    const server = await harness();
    const pidFile = join(server.temp.home, 'hook.pid');
    await writeFile(
      join(server.temp.home, 'hooks.json'),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `echo $$ > ${pidFile}; exec sleep 60`, timeout: 1 }] }] } }),
    );
    const client = await server.connect();
    await trustAll(client, server.temp.cwd);
    const { id } = await startThread(client, { cwd: server.temp.cwd });
    const done = await runTurn(client, id, 'run: touch after-timeout.txt');
    expect((done.params.turn as { status: string }).status).toBe('completed');
    expect(existsSync(join(server.temp.cwd, 'after-timeout.txt'))).toBe(true);
    const [run] = hookRuns(client, 'hook/completed');
    expect(run).toMatchObject({ status: 'failed', entries: [{ kind: 'error', text: 'hook timed out after 1s' }] });
    const pid = Number((await readFile(pidFile, 'utf8')).trim());
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it('gives hooks the JSON payload on stdin and the shell tools\' environment, without secrets', async () => {
    process.env.DEPUTY_HOOK_TEST_SECRET_TOKEN = 'hunter2-secret';
    const server = await harness();
    const envFile = join(server.temp.home, 'hook.env');
    const stdinFile = join(server.temp.home, 'hook.stdin');
    await writeFile(join(server.temp.home, 'hooks.json'), JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: `cat > ${stdinFile}; env > ${envFile}` }] }] } }));
    const client = await server.connect();
    await trustAll(client, server.temp.cwd);
    const { id } = await startThread(client, { cwd: server.temp.cwd });
    await runTurn(client, id, 'run: echo payload');
    const payload = JSON.parse(await readFile(stdinFile, 'utf8')) as Record<string, unknown>;
    expect(payload).toMatchObject({ session_id: id, cwd: server.temp.cwd, hook_event_name: 'PreToolUse', model: 'mock-model', tool_name: 'Bash', tool_input: { command: 'echo payload' } });
    const env = await readFile(envFile, 'utf8');
    expect(env).toContain('PATH=');
    expect(env).not.toContain('hunter2-secret');
  });
});

describe('other events', () => {
  it('a blocking Stop hook continues the turn with its reason as a hookPrompt item, once', async () => {
    const server = await harness();
    await writeFile(
      join(server.temp.home, 'hooks.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: `grep -q '"stop_hook_active":false' && echo '{"decision":"block","reason":"also say DONE"}'; exit 0` }] }] } }),
    );
    const client = await server.connect();
    await trustAll(client, server.temp.cwd);
    const { id } = await startThread(client, { cwd: server.temp.cwd });
    const done = await runTurn(client, id, 'hello');
    expect((done.params.turn as { status: string }).status).toBe('completed');
    const completed = client.notifications('item/completed').map((n) => n.params);
    const prompt = completed.find((p) => (p.item as { type: string }).type === 'hookPrompt');
    expect(prompt?.item).toMatchObject({ type: 'hookPrompt', fragments: [{ text: 'also say DONE', hookRunId: expect.stringContaining(':stop:0:0:') }] });
    expect(problemsAgainstDefinition('ItemCompletedNotification', prompt, '0.171')).toEqual([]);
    const messages = completed.filter((p) => (p.item as { type: string }).type === 'agentMessage').map((p) => (p.item as { text: string }).text);
    expect(messages).toEqual(['ECHO: hello', 'ECHO: also say DONE']);
    expect(hookRuns(client, 'hook/completed').map((r) => [r.eventName, r.status])).toEqual([['stop', 'blocked'], ['stop', 'completed']]);
  });

  it('a UserPromptSubmit hook blocks a prompt before the model sees it, or adds context to it', async () => {
    const server = await harness();
    await writeFile(
      join(server.temp.home, 'hooks.json'),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `grep -q password && { echo '{"decision":"block","reason":"no passwords in prompts"}'; exit 0; }; echo 'Remember: tabs, not spaces'` }] }] } }),
    );
    const client = await server.connect();
    await trustAll(client, server.temp.cwd);
    const { id } = await startThread(client, { cwd: server.temp.cwd });
    const asked = server.model.requests.filter((r) => r.wire === 'responses').length;
    await runTurn(client, id, 'my password is hunter2');
    expect(server.model.requests.filter((r) => r.wire === 'responses')).toHaveLength(asked);
    await runTurn(client, id, 'format the file');
    const input = (server.model.requests.filter((r) => r.wire === 'responses').at(-1)?.body.input ?? []) as Array<{ role?: string; content?: Array<{ text?: string }> }>;
    const texts = input.flatMap((i) => (i.content ?? []).map((c) => `${i.role}: ${c.text ?? ''}`));
    expect(texts).not.toContainEqual(expect.stringContaining('hunter2'));
    expect(texts.slice(-2)).toEqual(['user: format the file', 'developer: Remember: tabs, not spaces']);
    expect(hookRuns(client, 'hook/completed').map((r) => [r.eventName, r.status])).toEqual([['userPromptSubmit', 'blocked'], ['userPromptSubmit', 'completed']]);
  });

  it('a PermissionRequest hook decides instead of the user: deny keeps the command from running, allow runs it unasked', async () => {
    const server = await harness({ approvalPolicy: 'untrusted' });
    await writeFile(
      join(server.temp.home, 'hooks.json'),
      JSON.stringify({
        hooks: {
          PermissionRequest: [
            {
              matcher: 'Bash',
              hooks: [{ type: 'command', command: `if grep -q denied-file; then echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not this one"}}}'; else echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'; fi` }],
            },
          ],
          PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"checked by the post hook"}}'` }] }],
        },
      }),
    );
    const client = await server.connect();
    await trustAll(client, server.temp.cwd);
    const { id } = await startThread(client, { cwd: server.temp.cwd });
    await runTurn(client, id, 'run: touch denied-file');
    await runTurn(client, id, 'run: touch allowed-file');
    expect(existsSync(join(server.temp.cwd, 'denied-file'))).toBe(false);
    expect(existsSync(join(server.temp.cwd, 'allowed-file'))).toBe(true);
    expect(client.serverRequests).toEqual([]);
    const input = (server.model.requests.filter((r) => r.wire === 'responses').at(-1)?.body.input ?? []) as Array<{ role?: string; content?: Array<{ text?: string }> }>;
    expect(input.some((i) => i.role === 'developer' && i.content?.[0]?.text === 'checked by the post hook')).toBe(true);
    expect(hookRuns(client, 'hook/completed').map((r) => r.eventName)).toEqual(['permissionRequest', 'postToolUse', 'permissionRequest', 'postToolUse']);
  });
});
