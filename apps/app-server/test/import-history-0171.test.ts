/**
 * Contract tests of the import history over the real server (real thread-state store under a
 * temp home), every message checked against our schemas and the 0.171 reference:
 * `externalAgentConfig/import/recordHistory` and `readHistories` (flattened, newest first,
 * surviving a restart), bad input refused, and no `externalAgentConfig/import/progress`.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { harnessPerTest, restartServer, type Harness } from './support/harness.js';

const CURRENT = { requestAttestation: false, optOutNotificationMethods: ['remoteControl/status/changed'] };

interface History {
  importId: string;
  providerId: string | null;
  completedAtMs: number;
  successes: Array<Record<string, unknown>>;
  failures: Array<Record<string, unknown>>;
}

const harness = harnessPerTest();
let h: Harness;
beforeEach(async () => {
  h = await harness();
});

describe('externalAgentConfig/import history', () => {
  it('records imports, lists them newest first with the groups flattened, and keeps them across a restart', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    expect(await client.call('externalAgentConfig/import/readHistories', null)).toEqual({ data: [], connectors: [] });
    const started = Date.now();
    const first = await client.call<{ importId: string }>('externalAgentConfig/import/recordHistory', {
      providerId: 'claude-code',
      itemTypeResults: [
        {
          itemType: 'SKILLS',
          successes: [{ itemType: 'SKILLS', source: '/src/skills/a', target: '/dst/skills/a' }],
          failures: [{ itemType: 'SKILLS', failureStage: 'copy', message: 'permission denied', source: '/src/skills/b', errorType: 'io' }],
        },
        { itemType: 'SESSIONS', successes: [{ itemType: 'SESSIONS', cwd: '/work', title: 'Old session' }], failures: [] },
      ],
    });
    const second = await client.call<{ importId: string }>('externalAgentConfig/import/recordHistory', { providerId: 'other', itemTypeResults: [] });
    expect(first.importId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second.importId).not.toBe(first.importId);

    const read = await client.call<{ data: History[]; connectors: unknown[] }>('externalAgentConfig/import/readHistories', undefined);
    expect(read.connectors).toEqual([]);
    expect(read.data.map((d) => d.importId)).toEqual([second.importId, first.importId]);
    const [, recorded] = read.data as [History, History];
    expect(recorded).toEqual({
      importId: first.importId,
      providerId: 'claude-code',
      completedAtMs: expect.any(Number),
      successes: [
        { itemType: 'SKILLS', cwd: null, source: '/src/skills/a', target: '/dst/skills/a', title: null },
        { itemType: 'SESSIONS', cwd: '/work', source: null, target: null, title: 'Old session' },
      ],
      failures: [
        { itemType: 'SKILLS', failureStage: 'copy', message: 'permission denied', cwd: null, source: '/src/skills/b', errorType: 'io', subErrorType: null },
      ],
    });
    expect(recorded.completedAtMs).toBeGreaterThanOrEqual(started);
    expect(read.data[0]).toMatchObject({ providerId: 'other', successes: [], failures: [] });

    const restarted = await restartServer(h, CURRENT);
    try {
      expect(await restarted.client.call('externalAgentConfig/import/readHistories', null)).toEqual(read);
    } finally {
      await restarted.close();
    }
    expect(client.notifications('externalAgentConfig/import/progress')).toEqual([]);
  });

  it('refuses a malformed record with -32600 and stores nothing', async () => {
    const client = await h.connect({ capabilities: CURRENT });
    const errorOf = async (params: unknown) => (await client.request('externalAgentConfig/import/recordHistory', params)).error;
    expect((await errorOf({ itemTypeResults: [] }))?.code).toBe(-32600);
    expect((await errorOf({ providerId: 'p', itemTypeResults: [{ itemType: 'NOT_A_TYPE', successes: [], failures: [] }] }))?.code).toBe(-32600);
    expect((await errorOf({ providerId: 'p', itemTypeResults: [{ itemType: 'CONFIG', successes: [], failures: [{ itemType: 'CONFIG' }] }] }))?.code).toBe(-32600);
    expect(await client.call('externalAgentConfig/import/readHistories', null)).toEqual({ data: [], connectors: [] });
  });
});
