/**
 * Who this server is to remote-control-aware clients (`remoteControl/status/changed` and
 * `remoteControl/status/read`): the machine's name and a stable installation id, a random UUID
 * kept in `<home>/installation_id` and created on first need. Deputy offers no remote control, so
 * these identify the server only; nothing is sent anywhere.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const cache = new Map<string, string>();

function readId(file: string): string | null {
  try {
    const text = readFileSync(file, 'utf8').trim();
    return UUID.test(text) ? text : null;
  } catch {
    return null;
  }
}

/**
 * The installation id of the Deputy home `home`: the one stored there, else a new one written
 * there (exclusively, so two servers starting together agree on the first one written). When the
 * home is not writable the id lives as long as the process.
 */
export function installationIdOf(home: string): string {
  const cached = cache.get(home);
  if (cached !== undefined) return cached;
  const file = path.join(home, 'installation_id');
  let id = readId(file);
  if (id === null) {
    const fresh = randomUUID();
    try {
      mkdirSync(home, { recursive: true });
      writeFileSync(file, `${fresh}\n`, { flag: 'wx', mode: 0o644 });
      id = fresh;
    } catch {
      id = readId(file) ?? fresh;
    }
  }
  cache.set(home, id);
  return id;
}

/** The remote-control identity fields: this machine's host name and the installation id. */
export function serverIdentity(home: string): { serverName: string; installationId: string } {
  return { serverName: os.hostname(), installationId: installationIdOf(home) };
}
