/**
 * The engine's optional Node-API addons (packages/engine/native/, built by
 * scripts/build-native.mjs where a C compiler and Node's headers are found). Each is looked for
 * beside a bundle's chunks, in the engine's `dist/native/`, or, running from source (tests), in
 * the built `dist/native/`. Deputy works without them, only slower or larger.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The addon file `name` (for example `vfork-spawn.node`), or null off Linux or when it was not built. */
export function nativeAddonPath(name: string): string | null {
  if (process.platform !== 'linux') return null;
  for (const relative of [name, `../native/${name}`, `../../dist/native/${name}`]) {
    const file = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(file)) return file;
  }
  return null;
}

let trim: (() => boolean) | null | undefined;

/**
 * Gives the C heap's free pages back to the system (glibc's `malloc_trim(0)`, through
 * `malloc-trim.node`); returns true when it released memory. Null when the addon is not there or
 * does not load. Freed memory that glibc keeps inside its heap otherwise stays resident for
 * good: after a burst of model output the app-server's heap kept 40 MiB it no longer used
 * (docs/performance.md "Freed memory back to the system").
 */
export function mallocTrim(): (() => boolean) | null {
  if (trim !== undefined) return trim;
  trim = null;
  const file = nativeAddonPath('malloc-trim.node');
  if (file === null) return null;
  try {
    const holder = { exports: {} as { trim?: unknown } };
    process.dlopen(holder, file);
    const fn = holder.exports.trim;
    if (typeof fn === 'function') trim = () => fn() === true;
  } catch {
    // an addon built for another system: nothing is trimmed, as without it
  }
  return trim;
}
