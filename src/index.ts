export { abortError, isAbortError } from './abort'
export {
  BaseAdvisor,
  HIGHEST_PRECEDENCE,
  LOWEST_PRECEDENCE,
  isCallAdvisor,
  isStreamAdvisor,
  type Advisor,
  type CallAdvisor,
  type CallAdvisorChain,
  type ChatClientRequest,
  type ChatClientResponse,
  type StreamAdvisor,
  type StreamAdvisorChain,
} from './advisor'
export { AdvisorChain } from './chain'
export { ChatClient, ChatClientBuilder, ChatClientRequestSpec, CallResponseSpec, StreamResponseSpec } from './client'
export {
  assistantMessage,
  systemMessage,
  toolResponseMessage,
  userMessage,
  type AssistantMessage,
  type Message,
  type Metadata,
  type SystemMessage,
  type ToolCall,
  type ToolResponse,
  type ToolResponseMessage,
  type UserMessage,
} from './messages'
export {
  addUsage,
  hasToolCalls,
  type ChatModel,
  type ChatOptions,
  type ChatResponse,
  type ChatResponseMetadata,
  type Generation,
  type GenerationMetadata,
  type Prompt,
  type ResponseFormat,
  type ToolChoice,
  type Usage,
} from './model'
export {
  ScriptedChatModel,
  type ScriptFunction,
  type ScriptStep,
  type ScriptedChatModelOptions,
  type ScriptedReply,
  type ScriptedToolCall,
} from './models/scripted'
export type { JsonSchema } from './schema/json-schema'
export { ChatResponseAggregator, aggregateChunks } from './stream'
export type { ToolCallback, ToolContext, ToolDefinition, ToolMetadata } from './tools/tool'
