/**
 * Configuration errors. Their messages are meant to be shown as they are, without a stack
 * trace: they name the file (or the command-line flag), the key path and what was expected.
 */
import { EngineError } from '../errors.js';

/**
 * What a {@link ConfigError} is about, so a front door can word it as the reference does:
 * `override-syntax` is a `-c` that is not `key=value` (or whose key does not split),
 * `unknown-profile` a selected profile with no `[profiles.<name>]` table, `config` the rest.
 */
export type ConfigErrorKind = 'config' | 'override-syntax' | 'unknown-profile';

/** A config file, auth file, flag or override that cannot be used. */
export class ConfigError extends EngineError {
  constructor(
    message: string,
    readonly kind: ConfigErrorKind = 'config',
    /** The `-c` text (`override-syntax`) or the profile name (`unknown-profile`). */
    readonly subject?: string,
  ) {
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
