/**
 * `<home>/auth.json`, in Codex's layout: `{ "OPENAI_API_KEY": "sk-…" }` (other fields, such as
 * ChatGPT tokens, are kept but unused). A missing file means no stored key; a file that is not
 * JSON or has a non-string key is a `ConfigError` naming the file. Never logs the key.
 */
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
  const key = auth?.OPENAI_API_KEY;
  return typeof key === 'string' && key.trim() !== '' ? key.trim() : null;
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
