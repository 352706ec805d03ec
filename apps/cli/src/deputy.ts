#!/usr/bin/env node
/**
 * `node apps/cli/dist/deputy.js`, the entry documented before `deputy.cjs` (the `deputy` binary,
 * see there): runs it. Kept so host configurations written with this path go on working; they
 * start a little slower, through Node's ES module loader.
 */
import './deputy.cjs';
