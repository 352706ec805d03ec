/**
 * @deputy/test-support: what tests share. The per-test scripted model server (Responses and Chat
 * Completions streams, faults, request recording) and the demo script come from
 * `@deputy/demo-model`, the runtime package the engine's offline provider runs on; this package
 * adds temp homes, config fixtures, the one bounded `waitFor` and when the native addons must be there. Tests and benches only: no
 * shipped code imports it.
 */
export {
  startScriptedModelServer,
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  type ScriptedModelEntry,
  type StepHandler,
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
  demoScript,
  startDemoModelServer,
  summariseListing,
  parseLsListing,
} from '@deputy/demo-model';
export { makeTempHome, type TempHome } from './temp-home.js';
export { commentedConfigToml, mockProviderConfigToml, type MockProviderConfigOptions } from './config-fixtures.js';
export { waitFor } from './wait-for.js';
export { hasCCompiler, isGlibc } from './native.js';
export { HOSTILE_METHODS, hostileFrame, seededRandom, type HostileCarrier, type HostileFrame } from './hostile.js';
