/**
 * Configuration errors. Their messages are meant to be shown as they are, without a stack
 * trace: they name the file (or the command-line flag), the key path and what was expected.
 */
import { EngineError } from '../errors.js';

/** A config file, auth file, flag or override that cannot be used. */
export class ConfigError extends EngineError {
  constructor(message: string) {
    super('config_error', message);
  }
}

/** The selected model provider needs an API key that is not available. Raised when the provider is used. */
export class MissingApiKeyError extends EngineError {
  constructor(
    /** The provider id (`openai`, or a `model_providers.<id>` key). */
    readonly providerId: string,
    /** The environment variable that should hold the key, when the provider names one. */
    readonly envKey: string | null,
    message: string,
  ) {
    super('missing_api_key', message);
  }
}
