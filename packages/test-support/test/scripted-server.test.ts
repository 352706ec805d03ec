/**
 * The per-test scripted model server as tests import it from `@deputy/test-support`: the one
 * `@deputy/demo-model` runs, with its step builders and request readers.
 */
import { describe, expect, it } from 'vitest';
import { startScriptedModelServer as fromDemoModel } from '@deputy/demo-model';
import { lastUserText, startScriptedModelServer, text } from '../src/index.js';

describe('the scripted model server of test-support', () => {
  it('is the demo-model server: plays queued steps and records requests', async () => {
    expect(startScriptedModelServer).toBe(fromDemoModel);
    const server = await startScriptedModelServer({ steps: [{ output: [text('scripted hello')] }] });
    try {
      const res = await fetch(`${server.url}/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', stream: true, input: [{ type: 'message', role: 'user', content: 'hi' }] }),
      });
      expect(await res.text()).toContain('scripted hello');
      expect(server.requests.map(lastUserText)).toEqual(['hi']);
      expect(server.pendingSteps()).toBe(0);
    } finally {
      await server.close();
    }
  });
});
