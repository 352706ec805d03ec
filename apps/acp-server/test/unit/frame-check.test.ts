/** The harness's frame check rejects what the schema forbids (so the e2e checks mean something). */
import { describe, expect, it } from 'vitest';
import { agentFrameChecker } from '../helpers/acp-harness.js';

describe('agent frame check', () => {
  const check = agentFrameChecker();
  const methodOf = (id: unknown) => (id === 1 ? 'session/prompt' : undefined);
  it('accepts valid frames and rejects invalid ones', () => {
    const update = (u: Record<string, unknown>) => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: u } });
    expect(check(update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' }, messageId: 'm' }), methodOf)).toBeNull();
    expect(check(update({ sessionUpdate: 'bogus' }), methodOf)).toMatch(/SessionNotification/);
    expect(check(update({ sessionUpdate: 'tool_call', toolCallId: 'a', title: 't', kind: 'nope' }), methodOf)).toMatch(/SessionNotification/);
    expect(check({ jsonrpc: '2.0', id: 1, result: { stopReason: 'end_turn' } }, methodOf)).toBeNull();
    expect(check({ jsonrpc: '2.0', id: 1, result: { stopReason: 'weird' } }, methodOf)).toMatch(/PromptResponse/);
    expect(check({ jsonrpc: '2.0', id: 7, result: {} }, methodOf)).toMatch(/unknown request/);
  });
});
