import { describe, expect, it } from 'vitest';
import { EngineEventSchema } from '@deputy/protocol';

describe('EngineEventSchema', () => {
  it('accepts an item.completed event carrying an agent message', () => {
    const event = EngineEventSchema.parse({
      type: 'item.completed', threadId: 't', turnId: 'u', seq: 3, atMs: 1,
      item: { type: 'agentMessage', id: 'msg_1', text: 'hi', phase: null },
    });
    expect(event.type).toBe('item.completed');
  });

  it('rejects an event without a seq', () => {
    const result = EngineEventSchema.safeParse({ type: 'warning', threadId: 't', turnId: null, message: 'x' });
    expect(result.success).toBe(false);
  });
});
