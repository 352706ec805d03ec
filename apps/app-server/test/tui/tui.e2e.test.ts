/**
 * Acceptance by real clients: the official Codex TUI 0.130.0 (a 0.130 client) and 0.171.0 (a
 * current one), each run in tmux against our app-server (the bundled
 * `apps/app-server/bundle/main.js`) with the scripted model, complete a session a person would: a
 * greeting answered, a shell command approved with `y` and its output shown, a patch whose
 * approval prompt shows the diff and whose file lands on disk, and `/quit` with exit status 0, on
 * a server whose config says `approval_policy = "on-failure"` (which current TUIs cannot parse;
 * Deputy reports it as `on-request`). The 0.130 TUI also does it over a capability-token server
 * with `--remote-auth-token-env`; the 0.171 TUI also switches profiles with `/permissions` and
 * resumes a thread.
 * Rewind (Esc Esc, then Enter) uses `thread/read` and `thread/revert`; `/goal` uses `thread/goal/*`. The TUIs must be
 * installed (`bash scripts/install-codex-tui.sh`); when they are not, the tests fail and say so.
 * Set DEPUTY_TUI_SERVER=reference to run the same sessions against the reference
 * `codex app-server` of each version instead.
 */
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer } from '@deputy/test-support';
import { connect } from '@deputy/client';
import { startAppServer, upgradeStatus, type AppServerProcess, type ServerKind } from './app-server-process.js';
import { CODEX_TUI_VERSIONS, requireCodexBinary, type CodexTuiVersion } from './codex-binary.js';
import { killAllTmuxSessions, TmuxSession } from './tmux-session.js';
import { GREETING_ANSWER, TOOL_ANSWER_PREFIX, tuiModelScript } from './tui-model.js';

/** The server under test; the one line to change (or the env var) to point the TUI elsewhere. */
const SERVER_UNDER_TEST: ServerKind = process.env.DEPUTY_TUI_SERVER === 'reference' ? 'reference' : 'deputy';

const TOKEN_ENV = 'DEPUTY_TUI_TEST_TOKEN';
const SESSION_TIMEOUT_MS = 90_000;

/** Everything one TUI session owns; all of it is torn down in `afterEach`. */
interface Fixture {
  root: string;
  model: ScriptedModelServer | null;
  server: AppServerProcess | null;
  /** Every TUI started, a restarted one too (each runs its own tmux server). */
  tuis: TmuxSession[];
}

let fixture: Fixture | null = null;

afterEach(async () => {
  const f = fixture;
  fixture = null;
  if (f === null) return;
  await Promise.all(f.tuis.map((tui) => tui.kill()));
  await f.server?.stop();
  await f.model?.close();
  await rm(f.root, { recursive: true, force: true });
});

// A safety net for a session whose test ended before it was recorded in the fixture.
afterAll(killAllTmuxSessions);

/** The client home: a provider that needs no OpenAI login, and the policies the TUI sends. */
function tuiConfigToml(): string {
  return [
    'model = "mock-model"',
    'model_provider = "mock"',
    'approval_policy = "on-request"',
    'sandbox_mode = "read-only"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.mock]',
    'name = "mock"',
    // Never contacted in --remote mode; the server talks to the model.
    'base_url = "http://127.0.0.1:9/v1"',
    'wire_api = "responses"',
    '',
  ].join('\n');
}

/** What a session runs with. */
interface SessionOptions {
  version: CodexTuiVersion;
  withToken: boolean;
  /** The server's configured approval policy. */
  approvalPolicy?: 'on-request' | 'on-failure';
}

/** A running session. */
interface Session {
  work: string;
  tui: TmuxSession;
  server: AppServerProcess;
  token: string | null;
  /** Starts another TUI of the same version against the same server (the first one must have exited). */
  restart(extraArgs: string[]): Promise<TmuxSession>;
}

/** Starts the model, the server and the TUI; returns the workspace and the TUI session. */
async function startSession(options: SessionOptions): Promise<Session> {
  const codexBin = requireCodexBinary(process.env, options.version);
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'deputy-tui-e2e-')));
  const f: Fixture = { root, model: null, server: null, tuis: [] };
  fixture = f;
  const work = path.join(root, 'work');
  const serverHome = path.join(root, 'server-home');
  const tuiHome = path.join(root, 'tui-home');
  const tmuxDir = path.join(root, 'tmux');
  await Promise.all([work, serverHome, tuiHome, tmuxDir].map((dir) => mkdir(dir, { recursive: true })));
  await writeFile(path.join(tuiHome, 'config.toml'), tuiConfigToml());

  f.model = await startScriptedModelServer({ handler: tuiModelScript(), models: ['mock-model'] });
  const token = options.withToken ? `tok-${process.pid}-${Date.now()}-tui` : null;
  f.server = await startAppServer({
    kind: SERVER_UNDER_TEST,
    codexBin,
    home: serverHome,
    modelUrl: f.model.url,
    capabilityToken: token === null ? undefined : { token, tokenFile: path.join(root, 'ws-token') },
    approvalPolicy: options.approvalPolicy,
    // Current TUIs ask the server whether the folder is trusted and would ask the user otherwise.
    trustedProjects: [work],
  });
  const server = f.server;

  const env: Record<string, string> = { CODEX_HOME: tuiHome, TERM: 'xterm-256color' };
  if (token !== null) env[TOKEN_ENV] = token;
  const launch = async (extraArgs: string[], dir: string): Promise<TmuxSession> => {
    const tuiArgs = [...extraArgs, '--remote', server.url, '-C', work, '--no-alt-screen'];
    if (token !== null) tuiArgs.push('--remote-auth-token-env', TOKEN_ENV);
    await mkdir(dir, { recursive: true });
    const tui = await TmuxSession.start({ dir, argv: [codexBin, ...tuiArgs], env, cols: 200, rows: 50 });
    f.tuis.push(tui);
    return tui;
  };
  let runs = 0;
  const tui = await launch([], tmuxDir);
  return { work, tui, server, token, restart: (extraArgs) => launch(extraArgs, path.join(root, `tmux-${++runs}`)) };
}

/** `expect` on a screen, with the whole screen in the failure message. */
function expectScreen(screen: string) {
  return expect(screen, `screen:\n${screen}`);
}

/** Pastes `text` into the composer, waits until it shows, and submits it. */
async function submit(tui: TmuxSession, text: string): Promise<void> {
  await tui.paste(text);
  await tui.waitForText(text, 10_000);
  await tui.press('Enter');
}

/** Adds the server's stderr to a failure, so it shows both sides. */
async function explain<T>(server: AppServerProcess, step: Promise<T>): Promise<T> {
  try {
    return await step;
  } catch (error) {
    if (error instanceof Error) error.message += `\n--- ${SERVER_UNDER_TEST} app-server stderr (tail) ---\n${server.stderr().slice(-4_000)}`;
    throw error;
  }
}

/** Waits for the banner, then has the greeting answered. */
async function greet(tui: TmuxSession, work: string): Promise<void> {
  // Connected: the banner shows the model and the workspace from thread/start.
  await tui.waitFor('the session banner', (s) => s.includes('mock-model') && s.includes(work));
  await submit(tui, 'Hello there, TUI test!');
  await tui.waitForText(GREETING_ANSWER);
}

/** The scripted session: greeting, approved command, approved patch, quit. */
async function runScriptedSession(options: SessionOptions): Promise<void> {
  const { work, tui, server, token } = await startSession(options);
  await explain(server, (async () => {
    if (token !== null) {
      // The server really demands the token, so the TUI got in only by sending it.
      expect(await upgradeStatus(server.url)).toBe(401);
      expect(await upgradeStatus(server.url, `${token}-wrong`)).toBe(401);
    }
    await greet(tui, work);
    // A current TUI would warn about a server older than itself if the user agent said so.
    expectScreen(await tui.capture()).not.toMatch(/older than your Codex CLI/);

    await submit(tui, 'run: echo SHELL_OK_$((6*7))');
    const prompt = await tui.waitForText('Would you like to run the following command?');
    expectScreen(prompt).toContain('echo SHELL_OK_$((6*7))');
    // The command has not run yet: its output appears only after the approval.
    expectScreen(prompt).not.toContain('SHELL_OK_42');
    await tui.press('y');
    // The command cell shows the real output (the shell expanded the arithmetic).
    await tui.waitForText(/└\s+SHELL_OK_42/);
    await tui.waitForText(`${TOOL_ANSWER_PREFIX} SHELL_OK_42`);

    await submit(tui, 'patch: tui-note.txt=written through the Codex TUI');
    const edits = await tui.waitForText('Would you like to make the following edits?');
    // The prompt renders the added file from item/started's `changes`: one added line, numbered.
    expectScreen(edits).toContain('Added tui-note.txt (+1 -0)');
    expectScreen(edits).toMatch(/^\s*1 \+written through the Codex TUI\s*$/m);
    await expect(readFile(path.join(work, 'tui-note.txt'), 'utf8')).rejects.toThrow();
    await tui.press('y');
    await tui.waitFor('the answer after the patch', (s) => s.split(TOOL_ANSWER_PREFIX).length > 2);
    expect(await readFile(path.join(work, 'tui-note.txt'), 'utf8')).toBe('written through the Codex TUI\n');

    await submit(tui, '/quit');
    expect(await tui.waitForExit()).toBe(0);
  })());
}

describe.each(CODEX_TUI_VERSIONS)(`the Codex %s TUI against the ${SERVER_UNDER_TEST} app-server`, (version) => {
  it(
    'greets, runs an approved command, applies an approved patch and quits with status 0, on a server configured with on-failure',
    async () => {
      await runScriptedSession({ version, withToken: false, approvalPolicy: 'on-failure' });
    },
    SESSION_TIMEOUT_MS,
  );

  it.runIf(version === '0.130.0')(
    'does the same over a capability-token server with --remote-auth-token-env',
    async () => {
      await runScriptedSession({ version, withToken: true });
    },
    SESSION_TIMEOUT_MS,
  );
});

describe(`the Codex 0.171.0 TUI's newer features against the ${SERVER_UNDER_TEST} app-server`, () => {
  const version: CodexTuiVersion = '0.171.0';

  it(
    '/permissions shows the profile in force, switches to Full Access, and the next patch applies without a prompt',
    async () => {
      const { work, tui, server } = await startSession({ version, withToken: false });
      await explain(server, (async () => {
        await greet(tui, work);
        await submit(tui, '/permissions');
        // The menu first says "Loading permission profiles…" until permissionProfile/list answers.
        const menu = await tui.waitFor('the permissions menu', (s) => (s.includes('Update Model Permissions') && /\(current\)/.test(s)) || /does not support permission discovery/.test(s));
        expectScreen(menu).not.toContain('does not support permission discovery');
        // The server's sandbox is read-only: its activePermissionProfile marks the current entry.
        expectScreen(menu).toMatch(/Read Only \(current\)/);
        // The cursor starts on the current entry (the last); Full Access is the one above it.
        await tui.press('Up');
        await tui.waitFor('Full Access selected', (s) => /›\s+\d\. Full Access/.test(s));
        await tui.press('Enter');
        await tui.waitForText('Enable full access?');
        await tui.press('Enter');
        // thread/settings/update {permissions: ":danger-full-access", approvalPolicy: "never"}, then
        // every turn/start repeats the profile: a patch, which read-only would stop for approval,
        // lands without a prompt.
        await tui.waitForText('Permission selection requested: Full Access');
        await submit(tui, 'patch: full-access.txt=written with full access');
        await tui.waitForText(TOOL_ANSWER_PREFIX);
        expect(await readFile(path.join(work, 'full-access.txt'), 'utf8')).toBe('written with full access\n');
        expectScreen(await tui.capture()).not.toContain('Would you like to make the following edits?');
        await submit(tui, '/quit');
        expect(await tui.waitForExit()).toBe(0);
      })());
    },
    SESSION_TIMEOUT_MS,
  );

  it(
    'resumes the last thread with its history and continues it',
    async () => {
      const session = await startSession({ version, withToken: false });
      const { work, server } = session;
      await explain(server, (async () => {
        await greet(session.tui, work);
        await submit(session.tui, '/quit');
        expect(await session.tui.waitForExit()).toBe(0);
        const resumed = await session.restart(['resume', '--last']);
        // The history of the first session is shown again, then a new turn runs on the same thread.
        await resumed.waitForText(GREETING_ANSWER);
        await submit(resumed, 'Hello again after resume!');
        await resumed.waitFor('the second answer', (s) => s.split(GREETING_ANSWER).length > 2);
        await submit(resumed, '/quit');
        expect(await resumed.waitForExit()).toBe(0);
      })());
    },
    SESSION_TIMEOUT_MS,
  );

  it(
    'rewinds to an earlier prompt with Esc Esc, and the server forgets the reverted turn',
    async () => {
      const { work, tui, server } = await startSession({ version, withToken: false });
      await explain(server, (async () => {
        await greet(tui, work);
        const second = 'A second prompt to rewind over';
        await submit(tui, second);
        await tui.waitFor('the second answer', (s) => s.split(GREETING_ANSWER).length > 2);
        // Each Esc waits for the screen it leads to: two Escapes sent back to back reach the TUI
        // as one escape sequence and do nothing.
        await tui.press('Escape');
        await tui.waitForText('esc again to edit previous message');
        await tui.press('Escape');
        await tui.waitForText('Browsing transcript');
        // Enter rewinds to the selected (last) prompt: thread/revert {beforeTurnId} on the server.
        await tui.press('Enter');
        const screen = await tui.waitForText('Conversation reverted to this point');
        const after = screen.split('Conversation reverted to this point').at(-1) ?? '';
        // The reverted prompt is back in the composer, and its answer is gone from the screen.
        expectScreen(screen).toMatch(new RegExp(`› ${second}\\s*$`, 'm'));
        expectScreen(after).not.toContain(GREETING_ANSWER);
        // Sending the edited prompt again runs it as the thread's second turn, not its third.
        await tui.press('Enter');
        await tui.waitFor('the answer to the resent prompt', (s) => (s.split('Conversation reverted to this point').at(-1) ?? '').includes(GREETING_ANSWER));
        await submit(tui, '/quit');
        expect(await tui.waitForExit()).toBe(0);

        // What the server stored, read back with @deputy/client (unchecked against the reference).
        const client = await connect({ ws: server.url, validate: SERVER_UNDER_TEST === 'deputy', clientInfo: { name: 'deputy-tui-test', title: null, version: '0.0.0' }, timeoutMs: 10_000 });
        const read = await (async () => {
          try {
            const list = await client.request('thread/list', {});
            expect(list.data).toHaveLength(1);
            return await client.request('thread/read', { threadId: list.data[0]?.id ?? '', includeTurns: true });
          } finally {
            await client.close();
          }
        })();
        const prompts = read.thread.turns.map((turn) =>
          turn.items.flatMap((item) => (item.type === 'userMessage' ? item.content.map((part) => (part.type === 'text' ? part.text : '')) : [])),
        );
        expect(prompts).toEqual([['Hello there, TUI test!'], [second]]);
      })());
    },
    SESSION_TIMEOUT_MS,
  );

  it(
    '/goal reads and sets the thread goal',
    async () => {
      const { work, tui, server } = await startSession({ version, withToken: false });
      await explain(server, (async () => {
        await greet(tui, work);
        await submit(tui, '/goal');
        const screen = await tui.waitFor('the goal view', (s) => /goal/i.test(s.split('/goal').at(-1) ?? ''));
        expectScreen(screen).not.toMatch(/Failed to read thread goal/);
        await tui.press('Escape');
        await submit(tui, '/quit');
        expect(await tui.waitForExit()).toBe(0);
      })());
    },
    SESSION_TIMEOUT_MS,
  );
});
