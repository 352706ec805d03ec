#!/usr/bin/env node
// The entry of a server bundle (`apps/<app>/bundle/main.js`, written by scripts/bundle.mjs from
// this template): loads the bundle's CommonJS chunks with V8's code cache. Each chunk is
// compiled with the cache `code-cache/<chunk>.cache` beside it when that file exists and V8
// accepts it (same V8 version and flags); otherwise it is compiled from source, as without a
// cache. Chunk names carry a hash of their content, so a cache never meets another text of the
// same name. When a cache was missing or rejected (e.g. after a Node upgrade) the process writes
// fresh ones as it exits, if the bundle directory is writable; `DEPUTY_CODE_CACHE=0` turns the
// cache off (read and write). See docs/performance.md, "Start-up through the CLI".
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const v8 = require('node:v8');
const vm = require('node:vm');

// Model requests go through Node's fetch, whose HTTP parser (llhttp) is WebAssembly. V8 compiles
// its functions again with its optimising compiler (TurboFan) on background threads, and a
// process cannot exit before those jobs end: 100-150 ms at the end of every `deputy exec` here.
// `--liftoff-only` keeps WebAssembly on the baseline compiler, which parses a model's stream fast
// enough (`--no-wasm-tier-up` alone did not stop the jobs on Node 20). Set before any chunk is
// compiled, as the code cache records V8's flags (the build's warm-up run loads the chunks through
// this file too).
v8.setFlagsFromString('--liftoff-only');
const { createRequire } = require('node:module');
const { pathToFileURL } = require('node:url');

/** The bundle's entry chunk; scripts/bundle.mjs writes its name here. */
const ENTRY = './server.js';
const CACHE_DIR = path.join(__dirname, 'code-cache');
const useCache = process.env.DEPUTY_CODE_CACHE !== '0';
const requireOutside = createRequire(__filename);
/** Chunks loaded so far, by file name: their module object and compiled script. */
const chunks = new Map();
let stale = false;

function loadChunk(name) {
  const loaded = chunks.get(name);
  if (loaded) return loaded.module.exports;
  const file = path.join(__dirname, name);
  const source = fs.readFileSync(file, 'utf8');
  let cachedData;
  if (useCache) {
    try {
      cachedData = fs.readFileSync(path.join(CACHE_DIR, `${name}.cache`));
    } catch {
      stale = true;
    }
  }
  // Strict like the ES modules the chunks were bundled as; `this` is undefined at the top level.
  const wrapped = `(function (exports, require, module, __filename, __dirname, __deputyImportMetaUrl) {'use strict';${source}\n})`;
  const script = new vm.Script(wrapped, { filename: file, cachedData });
  if (script.cachedDataRejected) stale = true;
  const module = { exports: {} };
  chunks.set(name, { module, script });
  script.runInThisContext().call(undefined, module.exports, requireChunk, module, file, __dirname, pathToFileURL(file).href);
  return module.exports;
}

/** `require` of the chunks: a sibling chunk through the cache, anything else as Node resolves it from here. */
function requireChunk(id) {
  return id.startsWith('./') ? loadChunk(id.slice(2)) : requireOutside(id);
}

/** Writes the cache of every chunk loaded (best effort: a read-only install keeps compiling from source). */
function writeCaches() {
  try {
    fs.mkdirSync(CACHE_DIR, { recursive: true });
    for (const [name, { script }] of chunks) {
      const target = path.join(CACHE_DIR, `${name}.cache`);
      const temporary = `${target}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, script.createCachedData());
      fs.renameSync(temporary, target);
    }
  } catch {
    // not writable, or full: the next start compiles from source again
  }
}

if (useCache) {
  process.on('exit', () => {
    if (stale) writeCaches();
  });
  if (process.env.DEPUTY_CODE_CACHE_DEBUG === '1') {
    process.on('exit', () => {
      const states = [...chunks.values()].map(({ script }) => script.cachedDataRejected === false);
      process.stderr.write(`deputy code cache: ${states.filter(Boolean).length} of ${states.length} chunks from the cache\n`);
    });
  }
}

loadChunk(ENTRY.slice(2));
