/** @deputy/protocol: zod schemas shared by the engine and the front doors. */
export * from './core/index.js';
export * from './jsonrpc.js';
