/**
 * The HTTP transport's bearer token: kept in a file readable by the owner only (0600, default
 * `<home>/mcp-server.token`), created with 32 random bytes when missing and reused otherwise so
 * configured hosts keep working across restarts. Comparison is constant-time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The default token file in a Deputy home. */
export function defaultTokenFile(home: string): string {
  return path.join(home, 'mcp-server.token');
}

/** Reads the token from `file`, creating the file (mode 0600) when it is missing or empty. */
export async function loadOrCreateToken(file: string): Promise<{ token: string; created: boolean }> {
  try {
    const existing = (await readFile(file, 'utf8')).trim();
    if (existing.length >= 16) {
      await chmod(file, 0o600);
      return { token: existing, created: false };
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return { token, created: true };
}

/** Constant-time comparison of a presented token with the expected one. */
export function tokensMatch(presented: string, expected: string): boolean {
  // Compared as SHA-256 digests, so neither the content nor the length shows in the timing.
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
