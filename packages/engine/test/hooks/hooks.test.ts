/**
 * Hooks: discovery with the reference's keys and the trust rule (untrusted, trusted, modified,
 * disabled), the decision protocol of each event as an exit-code/stdout table, and running
 * command hooks for real: matcher selection, concurrent launch, the payload on stdin, and a hook
 * killed at its timeout.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineEventBody } from '@deputy/protocol';
import { loadConfig } from '../../src/config/load-config.js';
import { makeTempHome, type TempHome } from '@deputy/test-support';
import { discoverHooks, hookEventLabel, type HookEntry } from '../../src/hooks/discovery.js';
import { runHooks, selectHooks, type HookContext } from '../../src/hooks/hook-runner.js';
import { interpretHookResult } from '../../src/hooks/output.js';

let temp: TempHome | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

const GUARD = '[[hooks.PreToolUse]]\nmatcher = "^Bash$"\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "./guard.sh"\ntimeout = 5\n';

async function configWith(toml: string, hooksJson?: unknown) {
  temp = await makeTempHome('deputy-hooks-');
  await writeFile(join(temp.home, 'config.toml'), toml);
  if (hooksJson !== undefined) await writeFile(join(temp.home, 'hooks.json'), JSON.stringify(hooksJson));
  return loadConfig({ home: temp.home, cwd: temp.cwd, env: {} });
}

describe('discovery and trust', () => {
  it('keys hooks by source, event, group and handler, and runs only those whose hash is trusted', async () => {
    const first = await configWith(GUARD, { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo done' }, { type: 'prompt' }] }], Bogus: [] } });
    const listed = await discoverHooks(first, first.sources.cwd);
    const home = temp?.home ?? '';
    expect(listed.hooks.map((h) => [h.key, h.trustStatus, h.isRunnable])).toEqual([
      [`${join(home, 'hooks.json')}:stop:0:0`, 'untrusted', false],
      [`${join(home, 'config.toml')}:pre_tool_use:0:0`, 'untrusted', false],
    ]);
    expect(listed.warnings).toEqual(expect.arrayContaining([expect.stringContaining('unknown hook event `Bogus`'), expect.stringContaining('prompt hooks are not supported'), expect.stringContaining('2 hooks need review')]));
    const [stop, guard] = listed.hooks as [HookEntry, HookEntry];
    expect(guard.currentHash).toMatch(/^sha256:[0-9a-f]{64}$/);

    const state = `\n[hooks.state."${stop.key}"]\ntrusted_hash = "${stop.currentHash}"\n[hooks.state."${guard.key}"]\ntrusted_hash = "${guard.currentHash}"\nenabled = false\n`;
    await writeFile(join(home, 'config.toml'), GUARD + state);
    const trusted = await discoverHooks(await loadConfig({ home, cwd: first.sources.cwd, env: {} }), first.sources.cwd);
    expect(trusted.hooks.map((h) => [h.trustStatus, h.enabled, h.isRunnable])).toEqual([['trusted', true, true], ['trusted', false, false]]);

    await writeFile(join(home, 'hooks.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo changed' }] }] } }));
    const modified = await discoverHooks(await loadConfig({ home, cwd: first.sources.cwd, env: {} }), first.sources.cwd);
    expect(modified.hooks[0]).toMatchObject({ trustStatus: 'modified', isRunnable: false });
  });

  it('reads project hooks only for a trusted project, and session-flag hooks under their synthetic path', async () => {
    temp = await makeTempHome('deputy-hooks-');
    await mkdir(join(temp.cwd, '.codex'), { recursive: true });
    await writeFile(join(temp.cwd, '.codex', 'hooks.json'), JSON.stringify({ hooks: { SessionStart: [{ matcher: 'startup', hooks: [{ command: 'echo hi' }] }] } }));
    await writeFile(join(temp.home, 'config.toml'), '');
    const untrusted = await loadConfig({ home: temp.home, cwd: temp.cwd, env: {}, overrides: ['hooks.Stop=[{hooks=[{type="command",command="true"}]}]'] });
    expect((await discoverHooks(untrusted, temp.cwd)).hooks.map((h) => [h.source, h.key])).toEqual([['sessionFlags', '/<session-flags>/config.toml:stop:0:0']]);
    await writeFile(join(temp.home, 'config.toml'), `[projects."${temp.cwd}"]\ntrust_level = "trusted"\n`);
    const trusted = await loadConfig({ home: temp.home, cwd: temp.cwd, env: {} });
    expect((await discoverHooks(trusted, temp.cwd)).hooks.map((h) => [h.source, h.event, h.matcher])).toEqual([['project', 'SessionStart', 'startup']]);
  });

  it('labels events as the reference keys them', () => {
    expect(['PreToolUse', 'PermissionRequest', 'UserPromptSubmit', 'Stop'].map((e) => hookEventLabel(e as never))).toEqual(['pre_tool_use', 'permission_request', 'user_prompt_submit', 'stop']);
  });
});

describe('the decision protocol', () => {
  const ok = (stdout: string, exitCode = 0, stderr = '') => ({ exitCode, stdout, stderr, error: null, durationMs: 1 });
  it.each([
    ['PreToolUse', ok('', 2, 'not that'), { status: 'blocked', block: 'not that' }],
    ['PreToolUse', ok('', 2, ''), { status: 'failed', block: null }],
    ['PreToolUse', ok('{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}'), { status: 'blocked', block: 'no' }],
    ['PreToolUse', ok('{"decision":"block","reason":"legacy"}'), { status: 'blocked', block: 'legacy' }],
    ['PreToolUse', ok('{"hookSpecificOutput":{"permissionDecision":"ask"}}'), { status: 'failed', block: null }],
    ['PreToolUse', ok('{"continue":false}'), { status: 'failed', stop: null }],
    ['PreToolUse', ok('plain text is ignored'), { status: 'completed', contexts: [] }],
    ['PreToolUse', ok('{not json'), { status: 'failed' }],
    ['PreToolUse', ok('', 1), { status: 'failed', block: null }],
    ['UserPromptSubmit', ok('remember the style guide'), { status: 'completed', contexts: ['remember the style guide'] }],
    ['UserPromptSubmit', ok('{"decision":"block","reason":"no secrets"}'), { status: 'blocked', block: 'no secrets' }],
    ['SessionStart', ok('{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx"}}'), { status: 'completed', contexts: ['ctx'] }],
    ['Stop', ok('{"decision":"block","reason":"run the tests first"}'), { status: 'blocked', block: 'run the tests first' }],
    ['Stop', ok('{"continue":false,"stopReason":"enough"}'), { status: 'stopped', stop: 'enough' }],
    ['PostToolUse', ok('{"decision":"block"}'), { status: 'failed', block: null }],
    ['PermissionRequest', ok('{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"nope"}}}'), { permission: { behavior: 'deny', message: 'nope' } }],
    ['PermissionRequest', ok('{"hookSpecificOutput":{"decision":{"behavior":"allow"}}}'), { permission: { behavior: 'allow' } }],
    ['PreCompact', ok('', 2, 'cannot block'), { status: 'failed', block: null }],
  ] as const)('%s: %j → %j', (event, result, expected) => {
    expect(interpretHookResult(event, result)).toMatchObject(expected);
  });

  it('reports a timeout or a failed start as an error entry', () => {
    expect(interpretHookResult('Stop', { exitCode: null, stdout: '', stderr: '', error: 'hook timed out after 1s', durationMs: 1000 })).toMatchObject({ status: 'failed', entries: [{ kind: 'error', text: 'hook timed out after 1s' }] });
  });
});

describe('running hooks', () => {
  function entry(event: HookEntry['event'], command: string, extra: Partial<HookEntry> = {}): HookEntry {
    return { key: `k:${command}`, event, handlerType: 'command', matcher: null, command, statusMessage: null, timeoutSec: 5, enabled: true, source: 'user', sourcePath: '/h/hooks.json', displayOrder: 0, currentHash: 'h', trustStatus: 'trusted', isRunnable: true, ...extra };
  }
  function context(cwd: string, events: EngineEventBody[]): HookContext {
    return {
      threadId: 't1',
      turnId: 'u1',
      cwd,
      model: 'm',
      approvalPolicy: 'never',
      sandbox: { type: 'danger-full-access' },
      transcriptPath: null,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? cwd },
      hiddenPaths: [],
      signal: new AbortController().signal,
      emit: (e) => events.push(e),
    };
  }

  it('selects by event, matcher and trust', () => {
    const hooks = [entry('PreToolUse', 'a', { matcher: '^Bash$' }), entry('PreToolUse', 'b', { matcher: 'Write|Edit' }), entry('PreToolUse', 'c', { isRunnable: false }), entry('Stop', 'd', { matcher: 'ignored' })];
    expect(selectHooks(hooks, { event: 'PreToolUse', matcherInputs: ['apply_patch', 'Write', 'Edit'] }).map((h) => h.command)).toEqual(['b']);
    expect(selectHooks(hooks, { event: 'Stop', matcherInputs: [] }).map((h) => h.command)).toEqual(['d']);
  });

  it('launches matching hooks concurrently with the payload on stdin, and the first block wins', async () => {
    temp = await makeTempHome('deputy-hooks-');
    const events: EngineEventBody[] = [];
    const dir = temp.home;
    // Each hook waits for the other's file: they finish only if both were started at once.
    const one = entry('PreToolUse', `cat > ${dir}/one.json; touch ${dir}/one; for i in $(seq 50); do [ -e ${dir}/two ] && break; sleep 0.1; done; [ -e ${dir}/two ] || exit 1; echo first >&2; exit 2`, { displayOrder: 0 });
    const two = entry('PreToolUse', `touch ${dir}/two; for i in $(seq 50); do [ -e ${dir}/one ] && break; sleep 0.1; done; echo second >&2; exit 2`, { displayOrder: 1 });
    const outcome = await runHooks([one, two], { event: 'PreToolUse', matcherInputs: ['Bash'], fields: { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'c1' } }, context(temp.cwd, events));
    expect(outcome.block?.reason).toBe('first');
    expect(outcome.runs.map((r) => r.status)).toEqual(['blocked', 'blocked']);
    expect(events.map((e) => e.type)).toEqual(['hook.started', 'hook.started', 'hook.completed', 'hook.completed']);
    const payload = JSON.parse(await readFile(join(dir, 'one.json'), 'utf8')) as Record<string, unknown>;
    expect(payload).toEqual({ session_id: 't1', turn_id: 'u1', transcript_path: null, cwd: temp.cwd, hook_event_name: 'PreToolUse', model: 'm', permission_mode: 'bypassPermissions', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'c1' });
  });

  it('kills a hook at its timeout, with its children', async () => {
    temp = await makeTempHome('deputy-hooks-');
    const marker = join(temp.home, 'late');
    const events: EngineEventBody[] = [];
    const hung = entry('Stop', `(sleep 3; touch ${marker}) & sleep 30`, { timeoutSec: 1 });
    const outcome = await runHooks([hung], { event: 'Stop', matcherInputs: [], fields: {} }, context(temp.cwd, events));
    expect(outcome.runs[0]).toMatchObject({ status: 'failed', entries: [{ kind: 'error', text: 'hook timed out after 1s' }] });
    await new Promise((r) => setTimeout(r, 3500));
    expect(existsSync(marker)).toBe(false);
  });
});
