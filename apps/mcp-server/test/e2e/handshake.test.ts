/**
 * Handshake and negotiation per protocol revision (raw 2025-06-18 and older offers, the v1 SDK
 * client on 2025-11-25, the v2 SDK client pinned to 2026-07-28), and `tools/list` compared
 * with the reference contract (`fixtures/reference-tools-list.json`, captured from Codex 0.130.0;
 * only the descriptions are Deputy's own).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectV1, connectV2 } from '../helpers/clients.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { RawClient } from '../helpers/raw-client.js';

const REFERENCE = JSON.parse(readFileSync(new URL('../fixtures/reference-tools-list.json', import.meta.url), 'utf8')) as { tools: Record<string, unknown>[] };

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});

afterAll(async () => {
  await harness?.close();
});

/** A copy of a JSON value with every `description` string replaced by a marker. */
function withoutDescriptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDescriptions);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'description' && typeof v === 'string' ? '<description>' : withoutDescriptions(v)]));
}

describe('initialize over stdio', () => {
  it('answers a 2025-06-18 initialize with that version, tools capability only and the server identity', async () => {
    const raw = new RawClient(harness.env(), [], harness.temp.cwd);
    try {
      const response = await raw.initialize({}, '2025-06-18');
      expect(response.result).toEqual({
        protocolVersion: '2025-06-18',
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: 'deputy-mcp-server', title: 'Deputy', version: expect.stringMatching(/^\d+\.\d+\.\d+/) },
      });
    } finally {
      await raw.kill();
    }
  });

  it('echoes every 2025-era version it supports and negotiates down an unknown one', async () => {
    const offers = [
      ['2024-11-05', '2024-11-05'],
      ['2025-03-26', '2025-03-26'],
      ['2025-11-25', '2025-11-25'],
      ['1999-01-01', '2025-11-25'],
    ];
    const clients = offers.map(() => new RawClient(harness.env(), [], harness.temp.cwd));
    try {
      const answers = await Promise.all(clients.map((client, i) => client.initialize({}, (offers[i] as string[])[0])));
      expect(answers.map((a) => a.result?.protocolVersion)).toEqual(offers.map(([, expected]) => expected));
    } finally {
      await Promise.all(clients.map((client) => client.kill()));
    }
  });

  it('serves tools/list and ping before initialize, as the reference does', async () => {
    const raw = new RawClient(harness.env(), [], harness.temp.cwd);
    try {
      expect((await raw.request(1, 'tools/list')).result?.tools).toHaveLength(2);
      expect((await raw.request(2, 'ping')).result).toEqual({});
    } finally {
      await raw.kill();
    }
  });

  it('negotiates 2025-11-25 with the v1 SDK client and 2025-06-18 when that is offered', async () => {
    const latest = await connectV1({ env: harness.env(), cwd: harness.temp.cwd });
    const older = await connectV1({ env: harness.env(), cwd: harness.temp.cwd, protocolVersion: '2025-06-18' });
    try {
      expect(latest.client.getServerVersion()).toMatchObject({ name: 'deputy-mcp-server' });
      expect(latest.client.getServerCapabilities()).toEqual({ tools: { listChanged: true } });
      expect(latest.negotiatedVersion()).toBe('2025-11-25');
      expect(await latest.client.ping()).toEqual({});
      expect(older.negotiatedVersion()).toBe('2025-06-18');
    } finally {
      await latest.close();
      await older.close();
    }
  });

  it('serves a v2 client pinned to the 2026-07-28 revision', async () => {
    const session = await connectV2(harness.env(), harness.temp.cwd);
    try {
      expect(session.client.getProtocolEra()).toBe('modern');
      expect(session.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(session.client.getServerVersion()).toMatchObject({ name: 'deputy-mcp-server' });
      const { tools } = await session.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['codex', 'codex-reply']);
    } finally {
      await session.close();
    }
  });
});

describe('tools/list', () => {
  it('lists exactly the two reference tools with the reference schemas', async () => {
    const raw = new RawClient(harness.env(), [], harness.temp.cwd);
    try {
      await raw.initialize();
      const listed = (await raw.request(2, 'tools/list', { cursor: 'ignored' })).result as { tools: Record<string, unknown>[]; nextCursor?: string };
      expect(listed.nextCursor).toBeUndefined();
      expect(withoutDescriptions(listed)).toEqual(withoutDescriptions(REFERENCE));
      for (const tool of listed.tools) expect(JSON.stringify(tool)).not.toContain('Codex Config struct');
    } finally {
      await raw.kill();
    }
  });

  it('adds the four session tools, with annotations and output schemas, when they are switched on', async () => {
    const session = await connectV1({ env: harness.env(), cwd: harness.temp.cwd, args: ['-c', 'mcp_server.session_tools=true'] });
    try {
      const { tools } = await session.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['codex', 'codex-reply', 'codex-list', 'codex-status', 'codex-interrupt', 'codex-fork']);
      for (const tool of tools.slice(2)) {
        expect(tool.annotations, tool.name).toBeDefined();
        expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
      }
      expect(tools.find((t) => t.name === 'codex-list')?.annotations).toMatchObject({ readOnlyHint: true });
      expect(tools.find((t) => t.name === 'codex-interrupt')?.annotations).toMatchObject({ destructiveHint: true });
    } finally {
      await session.close();
    }
  });
});
