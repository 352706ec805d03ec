/**
 * @deputy/demo-model: Deputy's built-in offline model. A real HTTP server on 127.0.0.1 that
 * speaks the OpenAI Responses and Chat Completions streams from a script (with faults and request
 * recording), and the demo script the `demo` provider runs. The engine starts it for the `demo`
 * provider; `@deputy/test-support` builds its per-test scripted server on it. Node built-ins
 * only: no engine, no test framework.
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
