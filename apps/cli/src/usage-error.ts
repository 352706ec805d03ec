/** A usage mistake on the command line: the CLI exits with status 2. Kept tiny so start-up loads nothing else. */
export class UsageError extends Error {}

/** The version `deputy --version` prints (the engine's DEPUTY_VERSION; kept in sync by a test). */
export const CLI_VERSION = '0.1.0';
