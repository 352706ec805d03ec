/**
 * Approval prompt spoofing through the MCP server, from the attacker's side: the scripted model
 * asks for a command (and gives a reason) holding a carriage return, ANSI erase-line and cursor
 * moves, a bidi override and a zero-width space. A real MCP client (the v2 SDK on the 2026-07-28
 * revision, and the v1 SDK on a 2025 one) receives the approval: its `message`, the text a host
 * renders, must hold no raw control or format character and must show the hidden part escaped
 * (the structured `codex_command` stays exact: approvals.test.ts checks it on the raw wire).
 * After the answer, the host holds what the shown command does, and nothing after a decline.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { functionCall, text } from '@deputy/test-support';
import { connectV1, connectV2 } from '../helpers/clients.js';
import { startHarness, type Harness } from '../helpers/harness.js';

/** A raw character that a terminal or an editor obeys or hides. */
const RAW = /[\x00-\x1f\x7f-\x9f\p{Cf}\u2028\u2029]/u;
const CMD = 'touch pwned.txt # \u202e\u200b\r\x1b[2K\x1b[1Gnpm test';
const REASON = 'run the tests\r\x1b[2Kroutine';
const SHOWN_CMD = String.raw`-lc 'touch pwned.txt # \u{202e}\u{200b}\x0d\x1b[2K\x1b[1Gnpm test'`;
const SHOWN_REASON = String.raw`run the tests\x0d\x1b[2Kroutine`;

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.close();
});
afterEach(async () => {
  await rm(join(harness.temp.cwd, 'pwned.txt'), { force: true });
});

const enqueueHostileCommand = () =>
  harness.model.enqueue({ output: [functionCall('exec_command', { cmd: CMD, justification: REASON })] }, { output: [text('tests ran')] });

const codexCall = { name: 'codex', arguments: { prompt: 'run the tests', 'approval-policy': 'untrusted', cwd: '' } };

describe('the approval message an MCP host renders', () => {
  it('holds the command and reason with every hidden character escaped (v2 client, 2026-07-28)', async () => {
    enqueueHostileCommand();
    const session = await connectV2(harness.env(), harness.temp.cwd);
    try {
      await session.client.callTool({ ...codexCall, arguments: { ...codexCall.arguments, cwd: harness.temp.cwd } });
      expect(session.elicitations).toHaveLength(1);
      const message = String(session.elicitations[0]!.message);
      for (const line of message.split('\n')) expect(line).not.toMatch(RAW);
      expect(message.split('\n')).toEqual([SHOWN_REASON, expect.stringContaining(SHOWN_CMD)]);
      expect(existsSync(join(harness.temp.cwd, 'pwned.txt'))).toBe(true);
    } finally {
      await session.close();
    }
  }, 60_000);

  it('holds no raw character either on the 2025 era, and a decline runs nothing (v1 client, elicitation/create)', async () => {
    enqueueHostileCommand();
    const session = await connectV1({ env: harness.env(), cwd: harness.temp.cwd, elicit: async () => ({ action: 'decline' }) });
    try {
      await session.client.callTool({ ...codexCall, arguments: { ...codexCall.arguments, cwd: harness.temp.cwd } });
      expect(session.elicitations).toHaveLength(1);
      const params = session.elicitations[0]!;
      const message = String(params.message);
      for (const line of message.split('\n')) expect(line).not.toMatch(RAW);
      expect(message).toContain(SHOWN_CMD);
      expect(message).toContain(SHOWN_REASON);
      expect(existsSync(join(harness.temp.cwd, 'pwned.txt'))).toBe(false);
    } finally {
      await session.close();
    }
  }, 60_000);
});
