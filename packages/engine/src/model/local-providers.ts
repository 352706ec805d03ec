/**
 * Local model providers: model servers the engine runs in its own process for a provider that
 * has no base URL, such as the built-in offline `demo` provider (`@deputy/demo-model`, imported
 * only when it is first needed). `LocalServers` starts each one once, on the first model request
 * that needs it, and stops them all on `close()`; `LocalProviderClient` is the model client of
 * such a provider. The resolved config is never touched: the server's URL lives here only.
 */
import { DEMO_PROVIDER_ID } from '../config/providers.js';
import { ConnectionError } from './errors.js';
import { createModelClient, type ProviderConnection } from './provider.js';
import type { ModelClient, ModelRequest, ModelStreamEvent } from './types.js';

/** A running local model server. */
export interface LocalModelServer {
  /** Base URL including the API version path, e.g. `http://127.0.0.1:40123/v1`. */
  readonly url: string;
  /** Stops the server and cuts its open connections. */
  close(): Promise<void>;
}

/** How to run one local provider. */
export interface LocalProvider {
  /** Starts a server for the provider. */
  start(): Promise<LocalModelServer>;
}

/** Local providers by provider id. */
export type LocalProviders = Readonly<Record<string, LocalProvider>>;

/** The providers Deputy runs itself: the offline demo model. */
export const BUILT_IN_LOCAL_PROVIDERS: LocalProviders = {
  [DEMO_PROVIDER_ID]: { start: async () => (await import('@deputy/demo-model')).startDemoModelServer() },
};

/** The local servers of one runtime: started on first need, stopped together. */
export class LocalServers {
  readonly #providers: LocalProviders;
  readonly #running = new Map<string, Promise<LocalModelServer>>();

  constructor(providers: LocalProviders) {
    this.#providers = providers;
  }

  /** True when the provider `id` is run locally. */
  serves(id: string): boolean {
    return Object.hasOwn(this.#providers, id);
  }

  /**
   * The base URL of `id`'s server, starting it on the first call; concurrent callers share one
   * start. A start that fails is forgotten, so the next request tries again.
   */
  async url(id: string): Promise<string> {
    let running = this.#running.get(id);
    if (!running) {
      const provider = this.#providers[id];
      if (!provider) throw new Error(`no local model provider "${id}"`);
      running = provider.start();
      this.#running.set(id, running);
      running.catch(() => {
        if (this.#running.get(id) === running) this.#running.delete(id);
      });
    }
    try {
      return (await running).url;
    } catch (error) {
      throw new ConnectionError(`The local model server of provider "${id}" did not start: ${(error as Error).message}`, error);
    }
  }

  /** Stops every server started so far; a later request starts its server again. */
  async close(): Promise<void> {
    const running = [...this.#running.values()];
    this.#running.clear();
    await Promise.all(running.map(async (server) => (await server.catch(() => null))?.close().catch(() => undefined)));
  }
}

/**
 * The model client of a locally run provider: the first request starts the server, then every
 * request goes to it as to any provider over HTTP (the same client, wire and retries).
 */
export class LocalProviderClient implements ModelClient {
  #client: { url: string; client: ModelClient } | null = null;

  constructor(
    private readonly servers: LocalServers,
    private readonly connection: Omit<ProviderConnection, 'baseUrl'>,
  ) {}

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    const url = await this.servers.url(this.connection.id);
    // A server started again after `close()` has another port.
    if (this.#client?.url !== url) this.#client = { url, client: createModelClient({ ...this.connection, baseUrl: url }) };
    yield* this.#client.client.stream(request, signal);
  }
}
