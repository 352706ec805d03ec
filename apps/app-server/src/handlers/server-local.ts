/**
 * Handlers of the 0.171 process-local methods (docs/app-server.md "Methods for current
 * clients"): `server/diagnostics` (live counters of this server and its process id and resident
 * memory), `rollout/compress` (acknowledged; Deputy keeps rollouts as they are) and
 * `feedback/save` (a ZIP bundle written to the client's path on this host; nothing is uploaded).
 * `skills/extraRoots/set` is in `catalog.ts`, next to `skills/list`.
 */
import { randomUUID } from 'node:crypto';
import { open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AppServer } from '@deputy/protocol';
import { RpcError } from '@deputy/rpc/core';
import type { AppContext } from '../app-context.js';
import JSZip from 'jszip';
import type { Handlers } from './types.js';

/** Most bytes of one log file in a feedback bundle: a larger file contributes its last bytes. */
const MAX_LOG_BYTES = 16 * 1024 * 1024;

/** The gauges `server/diagnostics` reports, read now. */
function gauges(app: AppContext): Array<{ name: string; value: number }> {
  const connections = app.router.openConnections();
  const sum = (of: (c: (typeof connections)[number]) => number) => connections.reduce((total, c) => total + of(c), 0);
  return [
    { name: 'app.connections', value: connections.length },
    { name: 'app.requests.in_flight', value: sum((c) => c.connection.inFlightRequests) },
    { name: 'app.outbound.queued', value: sum((c) => c.connection.outboundQueueLength) },
    { name: 'core.threads.live', value: app.manager.loaded().length },
  ];
}

/** The last `MAX_LOG_BYTES` of a file, or null when it cannot be read as a file. */
async function tailOf(file: string): Promise<Buffer | null> {
  try {
    const handle = await open(file, 'r');
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, MAX_LOG_BYTES);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, size - length);
      return buffer;
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

/** `Bug` for `bug`: the classification as the report's title shows it. */
function title(classification: string): string {
  return classification.charAt(0).toUpperCase() + classification.slice(1);
}

/** One file of the feedback bundle. */
interface ZipEntry {
  name: string;
  data: Buffer;
}

/** The bytes of a deflated ZIP archive holding `entries`, in order. */
async function zipArchive(entries: readonly ZipEntry[]): Promise<Buffer> {
  const zip = new JSZip();
  for (const entry of entries) zip.file(entry.name, entry.data, { createFolders: false });
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', platform: 'UNIX' });
}

/** The report and attachments of a feedback bundle, as ZIP entries. */
async function bundle(app: AppContext, params: AppServer.FeedbackSaveParams, threadId: string): Promise<ZipEntry[]> {
  const files: Array<{ file: string; contentType: string }> = [];
  if (params.includeLogs === true) {
    const rollout = app.manager.index.get(threadId)?.path ?? '';
    if (rollout !== '') files.push({ file: rollout, contentType: 'application/x-ndjson' });
    for (const file of params.extraLogFiles ?? []) files.push({ file: path.resolve(file), contentType: 'text/plain' });
  }
  const attachments: ZipEntry[] = [];
  const manifest: Array<{ entry: string; filename: string; contentType: string }> = [];
  const omitted: string[] = [];
  for (const { file, contentType } of files) {
    const data = await tailOf(file);
    if (data === null) {
      omitted.push(file);
      continue;
    }
    const entry = `attachments/${String(attachments.length).padStart(4, '0')}/${path.basename(file)}`;
    attachments.push({ name: entry, data });
    manifest.push({ entry, filename: path.basename(file), contentType });
  }
  const message = `[${title(params.classification)}]: Deputy session ${threadId}`;
  const reason = params.reason ?? null;
  const report = {
    event_id: randomUUID().replaceAll('-', ''),
    message,
    timestamp: Date.now() / 1000,
    ...(reason === null ? {} : { exception: { values: [{ type: message, value: reason }] } }),
    tags: {
      ...(params.tags ?? {}),
      classification: params.classification,
      cli_version: app.runtime.version,
      ...(reason === null ? {} : { reason }),
      thread_id: threadId,
    },
    omitted_log_files: omitted,
  };
  const json = (value: unknown) => Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8');
  return [{ name: 'report.json', data: json(report) }, ...attachments, { name: 'manifest.json', data: json(manifest) }];
}

/** The handlers of this area. */
export function serverLocalHandlers(app: AppContext): Handlers {
  return {
    'server/diagnostics': () => ({
      gauges: gauges(app),
      process: { id: process.pid, residentMemoryBytes: process.memoryUsage.rss(), physicalFootprintBytes: null },
    }),
    'rollout/compress': () => ({}),
    'feedback/save': async (params) => {
      if (!path.isAbsolute(params.savePath)) throw RpcError.invalidRequest('feedback savePath must be an absolute host path');
      const threadId = params.threadId?.trim() || `no-active-thread-${randomUUID()}`;
      const archive = await zipArchive(await bundle(app, params, threadId));
      try {
        // `wx`: the path must be unused; the caller owns the file afterwards.
        await writeFile(params.savePath, archive, { flag: 'wx', mode: 0o600 });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw RpcError.internal(`failed to save feedback: ${code === 'EEXIST' ? 'feedback save path already exists' : (error as Error).message}`);
      }
      return { savedPath: params.savePath, threadId, promptHash: null };
    },
  };
}
