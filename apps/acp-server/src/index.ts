/** @deputy/acp-server: Deputy as an Agent Client Protocol agent (docs/acp.md). */
export { runAcpServer, USAGE } from './run.js';
export { lenientInput, startAgent, type AgentDeps, type RunningAgent } from './server.js';
export { eventUpdates, replayUpdates, completedItemUpdates, toolCallOf } from './projection.js';
export { AcpApprovals, decisionOf, permissionOptions } from './permissions.js';
