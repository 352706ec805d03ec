/**
 * `<home>/auth.json`, in Codex's layout: `{ "OPENAI_API_KEY": "sk-…" }` (other fields, such as
 * ChatGPT tokens, are kept but unused). A missing file means no stored key; a file that is not
 * JSON or has a non-string key is a `ConfigError` naming the file. An API-key login writes
 * `{ "auth_mode": "apikey", "OPENAI_API_KEY": … }` atomically with mode 0600; a logout removes
 * the file. Never logs the key.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from './errors.js';

/** The parts of auth.json Deputy reads. */
export const AuthFileSchema = z.looseObject({
  /** An OpenAI API key stored by a login command. */
  OPENAI_API_KEY: z.string().nullable().optional(),
});
export type AuthFile = z.infer<typeof AuthFileSchema>;

/** The path of the auth file in `home`. */
export function authFilePath(home: string): string {
  return path.join(home, 'auth.json');
}

/** Reads the stored OpenAI API key; `null` when the file or the key is missing or empty. */
export async function readStoredApiKey(home: string): Promise<string | null> {
  const auth = await readAuthFile(home);
  return usableStoredKey(auth?.OPENAI_API_KEY);
}

/** A stored key as the engine uses it: trimmed, `null` when absent or blank. */
export function usableStoredKey(key: string | null | undefined): string | null {
  return typeof key === 'string' && key.trim() !== '' ? key.trim() : null;
}

/**
 * Stores `apiKey` in auth.json (Codex's API-key layout, replacing whatever was there): written to
 * a temporary file with mode 0600 and renamed over the old one, so a reader never sees half a
 * file. The key is stored as given, even empty (the reference accepts `""`); readers trim it.
 */
export async function writeStoredApiKey(home: string, apiKey: string): Promise<void> {
  const file = authFilePath(home);
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const content: AuthFile = { auth_mode: 'apikey', OPENAI_API_KEY: apiKey };
  try {
    await fs.mkdir(home, { recursive: true, mode: 0o700 });
    await fs.writeFile(temp, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await fs.rename(temp, file);
  } catch (e) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw new ConfigError(`${file}: cannot write: ${(e as Error).message}`);
  }
}

/** Deletes auth.json; a missing file is not an error. */
export async function removeAuthFile(home: string): Promise<void> {
  const file = authFilePath(home);
  try {
    await fs.rm(file, { force: true });
  } catch (e) {
    throw new ConfigError(`${file}: cannot remove: ${(e as Error).message}`);
  }
}

/** Reads and checks auth.json; `null` when it does not exist. */
export async function readAuthFile(home: string): Promise<AuthFile | null> {
  const file = authFilePath(home);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigError(`${file}: cannot read: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${file}: not valid JSON: ${(e as Error).message}`);
  }
  const parsed = AuthFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new ConfigError(`${file}: expected an object with an optional string OPENAI_API_KEY`);
  }
  return parsed.data;
}
