/**
 * Approval prompt spoofing through `deputy acp`, from the attacker's side: the scripted model
 * asks for a command and gives a reason holding a carriage return, ANSI erase-line and cursor
 * moves, a bidi override and a zero-width space. The editor (a client on the ACP SDK) receives
 * `session/request_permission`: the card's title, option labels and text must hold no raw control
 * or format character and must show the hidden part escaped, the tool call's title too, while
 * `rawInput` keeps the exact argv. After "allow", the host holds what the shown command does.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { functionCall, text } from '@deputy/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEnv, withAcp, type Env } from '../helpers/acp-harness.js';

/** A raw character that an editor obeys or hides. */
const RAW = /[\x00-\x1f\x7f-\x9f\p{Cf}\u2028\u2029]/u;
const CMD = 'touch pwned.txt # \u202e\u200b\r\x1b[2K\x1b[1Gnpm test';
const REASON = 'run the tests\r\x1b[2Kroutine';
const SHOWN_CMD = String.raw`-lc 'touch pwned.txt # \u{202e}\u{200b}\x0d\x1b[2K\x1b[1Gnpm test'`;

let env: Env;
beforeAll(async () => {
  env = await startEnv('approval_policy = "untrusted"\nsandbox_mode = "danger-full-access"');
}, 120_000);
afterAll(async () => {
  await env?.close();
});

describe('the permission card an editor shows', () => {
  it('holds the command and reason with every hidden character escaped, and runs exactly that command', async () => {
    env.model.enqueue({ output: [functionCall('exec_command', { cmd: CMD, justification: REASON })] }, { output: [text('tests ran')] });
    await withAcp(env, async (c) => {
      const { sessionId } = await c.agent.request(acp.methods.agent.session.new, { cwd: env.temp.cwd, mcpServers: [] });
      c.rec.responder = () => ({ outcome: { outcome: 'selected', optionId: 'approved' } });
      const response = await c.prompt(sessionId, 'run the tests');
      expect(response.stopReason).toBe('end_turn');
      const [request] = c.rec.permissions;
      const card = request!.toolCall;
      const shownTexts = [card.title ?? '', ...request!.options.map((o) => o.name), ...(card.content ?? []).map((b) => (b.type === 'content' && b.content.type === 'text' ? b.content.text : ''))];
      for (const shown of shownTexts) expect(shown).not.toMatch(RAW);
      expect(card.title).toContain(SHOWN_CMD);
      expect(shownTexts).toContain(String.raw`run the tests\x0d\x1b[2Kroutine`);
      expect(card.rawInput).toMatchObject({ command: [expect.any(String), '-lc', CMD] });
      const calls = c.rec.of(sessionId).filter((u) => u.sessionUpdate === 'tool_call');
      for (const call of calls) expect((call as { title: string }).title).not.toMatch(RAW);
      expect(existsSync(join(env.temp.cwd, 'pwned.txt'))).toBe(true);
      expect(c.invalid).toEqual([]);
    });
  }, 60_000);
});
