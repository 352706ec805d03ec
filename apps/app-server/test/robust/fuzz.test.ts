/**
 * Seeded fuzz of the built app-server on each transport (stdio, ws, unix): a fuzz client sends
 * generated hostile frames (packages/test-support `hostileFrame`) while a second client's
 * `thread/list` is sampled throughout. Checked: the server stays up; every well-formed request is
 * answered under its exact id and never with -32603; the second client is answered every time.
 * A failure names its seed, transport and frame index: `ROBUST_SEED=<seed> ROBUST_ONLY=<index>
 * pnpm test:robust` replays that one frame. Latency p99 and RSS are printed, not asserted (they
 * are measured by `pnpm bench robust`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileFrame, startScriptedModelServer, type HostileFrame, type ScriptedModelServer, type TempHome } from '@deputy/test-support';
import { referenceScript } from '../support/mock-model.js';
import { BUILD_TIMEOUT_MS, ensureBuilt, makeE2eHome, spawnServer, type ServerProcess } from '../e2e/support/server-process.js';
import { initialize, stdioPeer, wsPeer, type RawPeer } from './support/raw-peer.js';

const SEED = Number(process.env.ROBUST_SEED ?? 20_261_201);
const COUNT = Number(process.env.ROBUST_COUNT ?? 600);
const ONLY = process.env.ROBUST_ONLY === undefined ? undefined : Number(process.env.ROBUST_ONLY);
/** Frames sent before waiting for their answers. */
const BATCH = 40;

let model: ScriptedModelServer;
let temp: TempHome;
let server: ServerProcess;
let socket: string;

beforeAll(async () => {
  await ensureBuilt();
  model = await startScriptedModelServer({ handler: referenceScript });
  temp = await makeE2eHome(model.url);
  socket = join(temp.home, 'control', 'fuzz.sock');
  server = await spawnServer(temp, ['stdio://', 'ws://127.0.0.1:0', `unix://${socket}`]);
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
  await model?.close();
  await temp?.cleanup();
});

function rssMiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Samples `thread/list` on `peer` every 25 ms until stopped; each answer must come within 10 s. */
function sampleLiveness(peer: RawPeer): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const started = performance.now();
      peer.send(`{"method":"thread/list","id":"live-${i}","params":{"limit":5}}`);
      await peer.waitText((t) => t.startsWith(`{"id":"live-${i}",`), 10_000, `liveness answer ${i}`);
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return latencies;
    },
  };
}

async function fuzz(transport: 'stdio' | 'ws' | 'unix'): Promise<void> {
  const target = transport === 'stdio' ? stdioPeer(server) : transport === 'ws' ? await wsPeer(server.urls[1] as string) : await wsPeer(`ws+unix://${socket}:/`, 'unix');
  const watcher = await wsPeer(server.urls[1] as string);
  try {
    await initialize(target);
    await initialize(watcher);
    // Warm: the first request after the handshake loads the method tables and the engine.
    watcher.send('{"method":"thread/list","id":"warm","params":{}}');
    await watcher.waitText((t) => t.includes('"id":"warm"'), 30_000, 'the warm-up answer');
    const rssBefore = rssMiB(server.pid);
    const live = sampleLiveness(watcher);
    const failures: string[] = [];
    const carrier = transport === 'stdio' ? 'bytes' : 'text';
    const indexes = ONLY === undefined ? Array.from({ length: COUNT }, (_, i) => i) : [ONLY];
    const where = (f: HostileFrame) => `seed ${SEED}, ${transport}, frame ${f.index} (${f.kind})`;
    for (let start = 0; start < indexes.length; start += BATCH) {
      const frames = indexes.slice(start, start + BATCH).map((i) => hostileFrame(SEED, i, carrier));
      for (const f of frames) {
        if (typeof f.data === 'string') target.send(f.data);
        else if (transport === 'stdio') server.child.stdin.write(Buffer.concat([f.data, Buffer.from('\n')]));
      }
      for (const f of frames.filter((x) => x.expectsAnswer)) {
        const prefix = `"id":${f.idText}`;
        try {
          const answer = await target.waitText((t) => t.startsWith(`{${prefix},`) || (t.startsWith('{"error"') && t.endsWith(`${prefix}}`)), 15_000, where(f));
          if (answer.value.error?.code === -32603) failures.push(`${where(f)}: -32603 ${answer.value.error.message}`);
        } catch {
          failures.push(`${where(f)}: no answer`);
        }
      }
      if (server.child.exitCode !== null) failures.push(`seed ${SEED}, ${transport}: the server exited after frame ${start + BATCH - 1}`);
      if (failures.length > 0) break;
    }
    const latencies = await live.stop();
    const rssAfter = rssMiB(server.pid);
    console.log(
      `fuzz ${transport}: ${indexes.length} frames (seed ${SEED}); second client's thread/list p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms over ${latencies.length} samples; RSS ${rssBefore.toFixed(0)} → ${rssAfter.toFixed(0)} MiB`,
    );
    expect(failures).toEqual([]);
    // The fuzz client itself is still served.
    target.send('{"method":"thread/loaded/list","id":"still-here","params":{}}');
    expect((await target.waitText((t) => t.includes('"id":"still-here"'), 15_000)).value.result).toBeDefined();
  } finally {
    watcher.close();
    if (transport !== 'stdio') target.close();
  }
}

describe('seeded hostile frames', () => {
  it('on stdio', () => fuzz('stdio'), 120_000);
  it('on ws', () => fuzz('ws'), 120_000);
  it('on unix', () => fuzz('unix'), 120_000);
});
