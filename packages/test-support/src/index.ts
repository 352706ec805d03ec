/**
 * @deputy/test-support: a scripted OpenAI-compatible model server (Responses and Chat
 * Completions streams, faults, request recording), the offline demo model script, and temp
 * directories. Used by tests and, for the demo provider, by the CLI at run time.
 */
export {
  startScriptedModelServer,
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  type ScriptedModelEntry,
  type StepHandler,
} from './scripted-model-server.js';
export {
  text,
  functionCall,
  customToolCall,
  reasoning,
  isFaultStep,
  NO_RESPONSE_QUEUED_TEXT,
  type Step,
  type OutputStep,
  type FaultStep,
  type ScriptedOutput,
  type TextOutput,
  type FunctionCallOutput,
  type CustomToolCallOutput,
  type ReasoningOutput,
  type UsageSpec,
} from './scripted-steps.js';
export {
  lastUserText,
  functionCalls,
  functionOutputs,
  toolNames,
  inputItems,
  conversationTail,
  type RecordedRequest,
  type RequestBody,
  type ConversationToolCall,
  type ConversationToolOutput,
  type ConversationTail,
} from './request-matchers.js';
export { demoScript, startDemoModelServer, summariseListing, parseLsListing } from './demo-script.js';
export { makeTempHome, type TempHome } from './temp-home.js';
export { commentedConfigToml } from './config-fixtures.js';
