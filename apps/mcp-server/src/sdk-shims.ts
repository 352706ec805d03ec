/**
 * What the bundles load for the MCP SDK's `@modelcontextprotocol/server/_shims` (scripts/bundle.mjs
 * aliases that specifier here): the SDK's Node shims, except that the default JSON Schema
 * validator is the SDK's `@cfworker/json-schema` one instead of AJV. The SDK's Node shims import
 * AJV (its three dialects and ajv-formats, 290 KB) when the server module loads, which took about
 * 10 ms of every start before `initialize`, for a validator Deputy never asks for: the SDK uses it
 * only in `elicitInput` and `fromJsonSchema`, and Deputy sends its elicitations itself and reads
 * the answers leniently (docs/mcp-server.md, "Approvals"). `buildServer` passes the same
 * validator explicitly, so the unbundled server behaves the same.
 */
export { CfWorkerJsonSchemaValidator as DefaultJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
export { default as process } from 'node:process';
