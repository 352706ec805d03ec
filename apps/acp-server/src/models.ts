/**
 * The model choices of the `model` config option (docs/acp.md, "Modes and config options"): the
 * configured provider's own list (`GET /models`), asked in the background at most every five
 * minutes, with the configured model always first even when the provider does not list it (a
 * custom provider's model is never replaced by another). Without an answer (offline, no
 * `/models`, no key yet, the demo provider) the list is the configured model alone. `onChange`
 * hears when a fetch changed the list, so sessions can push `config_option_update`.
 */
import type { ResolvedConfig } from '@deputy/engine';
import type { Logger } from './log.js';

type Engine = typeof import('@deputy/engine');

/** How long a fetched list is used. */
const CACHE_MS = 5 * 60_000;
/** How long the provider may take to list its models. */
const LIST_TIMEOUT_MS = 5_000;

/** One model offered. */
export interface ModelChoice {
  id: string;
  name: string;
}

/** See the module comment. */
export class ModelChoices {
  #listed: ModelChoice[] = [];
  #fetchedAt = 0;
  #fetching: Promise<void> | null = null;

  constructor(
    private readonly engine: Engine,
    private readonly config: () => ResolvedConfig,
    private readonly log: Logger,
    private readonly onChange: () => void,
  ) {}

  /** The models to offer now, configured one first; starts a background fetch when stale. */
  list(): ModelChoice[] {
    const config = this.config();
    if (Date.now() - this.#fetchedAt > CACHE_MS) void this.refresh();
    const configured = { id: config.model, name: this.engine.describeModel(config.model, config.modelProviderId).displayName };
    return [configured, ...this.#listed.filter((m) => m.id !== configured.id)];
  }

  /** Asks the provider for its list (one fetch at a time); resolves when it answered or gave up. */
  refresh(): Promise<void> {
    this.#fetching ??= this.#fetch().finally(() => (this.#fetching = null));
    return this.#fetching;
  }

  async #fetch(): Promise<void> {
    const config = this.config();
    const baseUrl = config.provider.baseUrl;
    if (config.modelProviderId === 'demo' || !baseUrl) return;
    try {
      // Without its key the provider is not asked (it would refuse); a later call tries again.
      this.engine.resolveProvider(config);
    } catch {
      return;
    }
    this.#fetchedAt = Date.now();
    try {
      const models = await this.engine.listProviderModels({ ...config.provider, baseUrl }, AbortSignal.timeout(LIST_TIMEOUT_MS));
      const listed = models.map((m) => ({ id: m.slug, name: m.displayName }));
      if (JSON.stringify(listed) === JSON.stringify(this.#listed)) return;
      this.#listed = listed;
      this.onChange();
    } catch (error) {
      this.log.warn(`the model provider did not list its models; the model option offers the configured model only (${(error as Error).message})`);
    }
  }
}
