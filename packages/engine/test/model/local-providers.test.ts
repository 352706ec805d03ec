/**
 * Local providers: `LocalServers` starts a provider's server on first need (once, however many
 * requests ask at the same time), forgets a start that failed, and stops every server on
 * `close()`, after which the next request starts it again; `LocalProviderClient` talks to that
 * server over HTTP; the built-in `demo` provider is the offline demo model.
 */
import { describe, expect, it } from 'vitest';
import { startScriptedModelServer, text, type ScriptedModelServer } from '@deputy/test-support';
import { ConnectionError } from '../../src/model/errors.js';
import { BUILT_IN_LOCAL_PROVIDERS, LocalProviderClient, LocalServers, type LocalProvider } from '../../src/model/local-providers.js';
import type { ProviderConnection } from '../../src/model/provider.js';
import { collect, ofType, requestOf } from './helpers.js';

/** A local provider running scripted servers, recording each one it started. */
function scripted(): LocalProvider & { started: ScriptedModelServer[] } {
  const provider = {
    started: [] as ScriptedModelServer[],
    start: async () => {
      const server = await startScriptedModelServer({ handler: () => ({ output: [text(`from server ${provider.started.length}`)] }) });
      provider.started.push(server);
      return server;
    },
  };
  return provider;
}

/** The connection of a local provider: no key, no base URL (its server gives one). */
function localConnection(id: string): Omit<ProviderConnection, 'baseUrl'> {
  return { id, name: id, apiKey: null, wireApi: 'responses', queryParams: {}, httpHeaders: {}, requestMaxRetries: 0, streamMaxRetries: 0, streamIdleTimeoutMs: 5_000 };
}

describe('LocalServers', () => {
  it('starts a server once for concurrent requests and serves only the providers it knows', async () => {
    const provider = scripted();
    const servers = new LocalServers({ local: provider });
    try {
      expect(servers.serves('local')).toBe(true);
      expect(servers.serves('openai')).toBe(false);
      const urls = await Promise.all([servers.url('local'), servers.url('local'), servers.url('local')]);
      expect(new Set(urls).size).toBe(1);
      expect(provider.started).toHaveLength(1);
      expect(urls[0]).toBe(provider.started[0]?.url);
    } finally {
      await servers.close();
    }
  });

  it('reports a failed start as a connection error and tries again with the next request', async () => {
    let attempts = 0;
    const provider = scripted();
    const servers = new LocalServers({
      flaky: {
        start: async () => {
          attempts += 1;
          if (attempts === 1) throw new Error('port in use');
          return provider.start();
        },
      },
    });
    try {
      const failed = await servers.url('flaky').catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(ConnectionError);
      expect((failed as Error).message).toBe('The local model server of provider "flaky" did not start: port in use');
      expect(await servers.url('flaky')).toBe(provider.started[0]?.url);
      expect(attempts).toBe(2);
    } finally {
      await servers.close();
    }
  });

  it('stops its servers on close and starts a new one for a later request', async () => {
    const provider = scripted();
    const servers = new LocalServers({ local: provider });
    const client = new LocalProviderClient(servers, localConnection('local'));
    try {
      const first = await collect(client, requestOf());
      expect(ofType(first.events, 'item.done')[0]?.item).toMatchObject({ content: [{ text: 'from server 1' }] });
      await servers.close();
      await expect(fetch(`${provider.started[0]?.url}/models`)).rejects.toThrow();
      const second = await collect(client, requestOf());
      expect(second.error).toBeNull();
      expect(provider.started).toHaveLength(2);
      expect(provider.started[1]?.requests).toHaveLength(1);
      expect(provider.started[1]?.requests[0]?.headers).not.toHaveProperty('authorization');
    } finally {
      await servers.close();
    }
  });
});

describe('the built-in local providers', () => {
  it('run the offline demo model for the demo provider', async () => {
    expect(Object.keys(BUILT_IN_LOCAL_PROVIDERS)).toEqual(['demo']);
    const servers = new LocalServers(BUILT_IN_LOCAL_PROVIDERS);
    try {
      const client = new LocalProviderClient(servers, localConnection('demo'));
      const { events, error } = await collect(client, requestOf({ model: 'demo-scripted' }));
      expect(error).toBeNull();
      const answer = ofType(events, 'item.done').map((e) => JSON.stringify(e.item)).join('\n');
      expect(answer).toMatch(/offline demo model/);
    } finally {
      await servers.close();
    }
  });
});
