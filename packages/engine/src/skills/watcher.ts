/**
 * SkillsWatcher: tells its listener that skill files changed, so a front door can announce it
 * (`skills/changed`). It watches the skill roots of the cwds it is given (each root that exists,
 * recursively, at most {@link MAX_WATCHED_ROOTS}), coalesces bursts of changes into one call per
 * debounce window, and never throws for a root it cannot watch. `close()` stops every watch.
 */
import { watch, type FSWatcher } from 'node:fs';
import { homedir } from 'node:os';
import { skillRoots } from './discovery.js';

/** Most roots watched at once; roots beyond are not watched. */
export const MAX_WATCHED_ROOTS = 64;
/** Default quiet time before a burst of changes is reported. */
export const DEFAULT_SKILLS_DEBOUNCE_MS = 300;

/** Options of a {@link SkillsWatcher}. */
export interface SkillsWatcherOptions {
  home: string;
  /** Called once per burst of changes. */
  onChange(): void;
  debounceMs?: number;
  /** The OS user's home, for `~/.agents/skills`. */
  userHome?: string;
}

/** Watches skill roots and reports changes, debounced. */
export class SkillsWatcher {
  readonly #watchers = new Map<string, FSWatcher>();
  #timer: NodeJS.Timeout | null = null;
  #isClosed = false;

  constructor(private readonly options: SkillsWatcherOptions) {}

  /** Watches the skill roots visible from `cwd` (roots already watched, or missing, are skipped). */
  watchCwd(cwd: string): void {
    if (this.#isClosed) return;
    for (const root of skillRoots(this.options.home, cwd, this.options.userHome ?? homedir())) {
      if (this.#watchers.has(root.dir) || this.#watchers.size >= MAX_WATCHED_ROOTS) continue;
      try {
        const watcher = watch(root.dir, { recursive: true, persistent: false }, () => this.#changed());
        watcher.on('error', () => {
          watcher.close();
          this.#watchers.delete(root.dir);
        });
        this.#watchers.set(root.dir, watcher);
      } catch {
        // A root that does not exist (the usual case) or cannot be watched is not watched.
      }
    }
  }

  /** The roots being watched. */
  get watchedRoots(): string[] {
    return [...this.#watchers.keys()];
  }

  /** Stops every watch and any pending report. */
  close(): void {
    this.#isClosed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    for (const w of this.#watchers.values()) w.close();
    this.#watchers.clear();
  }

  #changed(): void {
    if (this.#isClosed || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (!this.#isClosed) this.options.onChange();
    }, this.options.debounceMs ?? DEFAULT_SKILLS_DEBOUNCE_MS);
    this.#timer.unref?.();
  }
}
