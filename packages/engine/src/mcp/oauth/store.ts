/**
 * Where the OAuth credentials of remote MCP servers live (`mcp_oauth_credentials_store`): a JSON
 * file `<home>/mcp-oauth-credentials.json` (mode 0600, written atomically), or the OS keyring
 * through `@napi-rs/keyring` (one entry per server). `keyring` and `auto` fall back to the file,
 * with one warning, when no keyring service answers; `auto` reads the keyring first, then the file.
 * Entries are keyed by server name and URL, so a server whose URL changes is logged out. A file
 * that is group/world readable or not valid JSON is ignored with a warning (the server shows as
 * not logged in) and never crashes a caller. No token ever reaches a warning or log line.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/** `mcp_oauth_credentials_store`. */
export const McpOAuthStoreModeSchema = z.enum(['auto', 'file', 'keyring']);
export type McpOAuthStoreMode = z.infer<typeof McpOAuthStoreModeSchema>;

/** The tokens of one server as the authorization server issued them (RFC 6749 §5.1), plus our expiry stamp. */
export const StoredTokensSchema = z.looseObject({
  access_token: z.string(),
  token_type: z.string(),
  refresh_token: z.string().optional(),
  expires_in: z.number().optional(),
  scope: z.string().optional(),
  issuer: z.string().optional(),
});

/** One server's credentials. */
export const McpOAuthEntrySchema = z.object({
  serverName: z.string(),
  serverUrl: z.string(),
  /** The registered (or configured) client, as the SDK saves it. */
  clientInformation: z.looseObject({ client_id: z.string() }).optional(),
  tokens: StoredTokensSchema.optional(),
  /** When the access token expires (ms since the epoch), from `expires_in` at save time. */
  expiresAtMs: z.number().nullable().optional(),
});
export type McpOAuthEntry = z.infer<typeof McpOAuthEntrySchema>;

const FileSchema = z.object({ version: z.literal(1), entries: z.record(z.string(), McpOAuthEntrySchema) });
type CredentialsFile = z.infer<typeof FileSchema>;

const KEYRING_SERVICE = 'deputy-mcp-oauth';
/** The file's name in the home. */
export const MCP_OAUTH_FILE = 'mcp-oauth-credentials.json';

/** The key of a server's entry. */
export function entryKey(serverName: string, serverUrl: string): string {
  return `${serverName}|${serverUrl}`;
}

/** The keyring operations the store uses (the `@napi-rs/keyring` `AsyncEntry`). */
interface KeyringEntry {
  getPassword(): Promise<string | null | undefined>;
  setPassword(password: string): Promise<void>;
  deletePassword(): Promise<boolean>;
}

/** Options of a store. */
export interface McpOAuthStoreOptions {
  home: string;
  mode: McpOAuthStoreMode;
  /** Where warnings go (default: stderr). Never given a token. */
  warn?: (message: string) => void;
}

/** See the module comment. */
export class McpOAuthStore {
  readonly file: string;
  readonly mode: McpOAuthStoreMode;
  readonly #warn: (message: string) => void;
  #keyring: Promise<((account: string) => KeyringEntry) | null> | null = null;
  #writes: Promise<void> = Promise.resolve();
  readonly #warned = new Set<string>();

  constructor(options: McpOAuthStoreOptions) {
    this.file = path.join(options.home, MCP_OAUTH_FILE);
    this.mode = options.mode;
    this.#warn = options.warn ?? ((message) => process.stderr.write(`deputy: warning: ${message}\n`));
  }

  /** Which store is in use after any fallback: `keyring` or `file`. */
  async backend(): Promise<'keyring' | 'file'> {
    return (await this.#keyringEntries()) ? 'keyring' : 'file';
  }

  /** A server's credentials; null when there are none (or they cannot be read: a warning says why). */
  async load(serverName: string, serverUrl: string): Promise<McpOAuthEntry | null> {
    const key = entryKey(serverName, serverUrl);
    const keyring = await this.#keyringEntries();
    if (keyring) {
      const fromKeyring = await this.#readKeyring(keyring(key), key);
      if (fromKeyring || this.mode === 'keyring') return fromKeyring;
    }
    const file = await this.#readFile();
    return file?.entries[key] ?? null;
  }

  /** Stores (replaces) a server's credentials. */
  save(entry: McpOAuthEntry): Promise<void> {
    return this.#serial(async () => {
      const key = entryKey(entry.serverName, entry.serverUrl);
      const keyring = await this.#keyringEntries();
      if (keyring) {
        await keyring(key).setPassword(JSON.stringify(entry));
        return;
      }
      const file = (await this.#readFile()) ?? { version: 1 as const, entries: {} };
      file.entries[key] = entry;
      await this.#writeFile(file);
    });
  }

  /** Deletes a server's credentials from every store; true when something was deleted. */
  remove(serverName: string, serverUrl: string): Promise<boolean> {
    return this.#serial(async () => {
      const key = entryKey(serverName, serverUrl);
      let removed = false;
      const keyring = await this.#keyringEntries();
      if (keyring) removed = await keyring(key).deletePassword().catch(() => false);
      const file = await this.#readFile();
      if (file && key in file.entries) {
        delete file.entries[key];
        await this.#writeFile(file);
        removed = true;
      }
      return removed;
    });
  }

  #serial<T>(body: () => Promise<T>): Promise<T> {
    const run = this.#writes.then(body);
    this.#writes = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  #warnOnce(message: string): void {
    if (this.#warned.has(message)) return;
    this.#warned.add(message);
    this.#warn(message);
  }

  /** The keyring, when the mode asks for it and a service answers; null otherwise (after one warning). */
  #keyringEntries(): Promise<((account: string) => KeyringEntry) | null> {
    if (this.mode === 'file') return Promise.resolve(null);
    this.#keyring ??= (async () => {
      try {
        const { AsyncEntry } = await import('@napi-rs/keyring');
        const make = (account: string): KeyringEntry => new AsyncEntry(KEYRING_SERVICE, account);
        // Reading an absent entry succeeds even without a service on some platforms: a write tells.
        const probe = make(`probe-${process.pid}-${randomBytes(4).toString('hex')}`);
        await probe.setPassword('probe');
        await probe.deletePassword();
        return make;
      } catch (error) {
        this.#warnOnce(
          `mcp_oauth_credentials_store = "${this.mode}": the OS keyring is not available (${error instanceof Error ? error.message : String(error)}); MCP OAuth credentials are kept in ${this.file} instead`,
        );
        return null;
      }
    })();
    return this.#keyring;
  }

  async #readKeyring(entry: KeyringEntry, key: string): Promise<McpOAuthEntry | null> {
    try {
      const text = await entry.getPassword();
      if (!text) return null;
      const parsed = McpOAuthEntrySchema.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
      this.#warnOnce(`the keyring entry of MCP server ${key.split('|')[0]} is not valid; log in again`);
    } catch (error) {
      this.#warnOnce(`cannot read the keyring entry of MCP server ${key.split('|')[0]}: ${error instanceof Error ? error.message : String(error)}`);
    }
    return null;
  }

  /** The file, or null when it is missing or unusable (a warning names the problem). */
  async #readFile(): Promise<CredentialsFile | null> {
    let text: string;
    try {
      const stat = await fs.stat(this.file);
      if ((stat.mode & 0o077) !== 0) {
        this.#warnOnce(
          `${this.file} has permissions ${(stat.mode & 0o777).toString(8).padStart(4, '0')}; it must be readable by you only (chmod 600), so it is ignored and its MCP servers show as not logged in`,
        );
        return null;
      }
      text = await fs.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.#warnOnce(`cannot read ${this.file}: ${(error as Error).message}`);
      return null;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.#warnOnce(`${this.file} is not valid JSON; it is ignored and its MCP servers show as not logged in`);
      return null;
    }
    const parsed = FileSchema.safeParse(json);
    if (!parsed.success) {
      this.#warnOnce(`${this.file} does not have the expected layout; it is ignored and its MCP servers show as not logged in`);
      return null;
    }
    return parsed.data;
  }

  /** Writes the file atomically with mode 0600 (a temp file renamed over the old one). */
  async #writeFile(file: CredentialsFile): Promise<void> {
    const temp = `${this.file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await fs.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
      await fs.writeFile(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      await fs.rename(temp, this.file);
    } catch (error) {
      await fs.rm(temp, { force: true }).catch(() => undefined);
      throw new Error(`cannot write ${this.file}: ${(error as Error).message}`);
    }
  }
}
