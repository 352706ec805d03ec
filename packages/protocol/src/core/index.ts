/** The shared vocabulary of the engine and both front doors. */
export * from './policies.js';
export * from './items.js';
export * from './events.js';
export * from './client-tools.js';
export * from './display-text.js';
