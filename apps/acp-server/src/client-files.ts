/**
 * The editor's files (docs/acp.md, "Patches and the editor's files"): the engine's `EditorFiles`
 * port answered with ACP's `fs/read_text_file` and `fs/write_text_file` when the client
 * advertises them. The engine decides what reaches the editor (only paths inside the writable
 * roots, after approval); this side narrows it further to the session's roots (its cwd and
 * additional directories), so under full access a path elsewhere is still written on disk and
 * never sent to the client. `[acp] client_fs = "off"` in config.toml turns the route off.
 */
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import type { EditorFiles } from '@deputy/engine';
import type { AcpSession } from './sessions.js';

/** Whether `target` is `root` or inside it. */
function within(target: string, root: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The `client_fs` setting of the `[acp]` table: on unless `"off"`. */
function clientFsOn(table: unknown): boolean {
  return !(typeof table === 'object' && table !== null && (table as { client_fs?: unknown }).client_fs === 'off');
}

/** Builds the port; everything is read when a patch asks, so capabilities and sessions may change meanwhile. */
export function clientFiles(
  capabilities: () => acp.ClientCapabilities,
  connection: () => acp.AgentConnection | null,
  sessionOf: (threadId: string) => AcpSession | undefined,
  acpTable: () => unknown,
): EditorFiles {
  return {
    forThread(threadId) {
      const fs = capabilities().fs;
      const conn = connection();
      const session = sessionOf(threadId);
      if (!conn || !session || !clientFsOn(acpTable()) || !(fs?.readTextFile || fs?.writeTextFile)) return null;
      const roots = session.roots();
      return {
        covers: (absPath) => roots.some((root) => within(absPath, root)),
        read: fs.readTextFile
          ? async (absPath, signal) => (await conn.client.request(acp.methods.client.fs.readTextFile, { sessionId: threadId, path: absPath }, { cancellationSignal: signal })).content
          : null,
        write: fs.writeTextFile
          ? async (absPath, content, signal) => {
              await conn.client.request(acp.methods.client.fs.writeTextFile, { sessionId: threadId, path: absPath, content }, { cancellationSignal: signal });
            }
          : null,
      };
    },
  };
}
