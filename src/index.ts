export { abortError, isAbortError } from './abort'
export {
  BaseAdvisor,
  HIGHEST_PRECEDENCE,
  LOWEST_PRECEDENCE,
  isCallAdvisor,
  isStreamAdvisor,
  type Advisor,
  type AnyAdvisor,
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
  appendToLastUserMessage,
  isMessage,
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
export { defineTool, type ToolSpec } from './tools/define-tool'
export {
  ToolCallingManager,
  ToolCallingManagerBuilder,
  type ToolCallLimits,
  type ToolExecutionEvent,
  type ToolExecutionInit,
  type ToolExecutionResult,
} from './tools/manager'
export type { ToolCallback, ToolContext, ToolDefinition, ToolMetadata } from './tools/tool'
export { ToolCallError, ToolCallLimitExceededError } from './tools/tool-errors'
export {
  ToolCallingAdvisor,
  ToolCallingAdvisorBuilder,
  type ToolCallingAdvisorOptions,
  type ToolExecutionEligibilityChecker,
} from './advisors/tool-calling'
export {
  isMemoryAdvisor,
  isToolAdvisor,
  MEMORY_ADVISOR,
  TOOL_ADVISOR,
  type MemoryAdvisor,
  type ToolAdvisor,
} from './advisors/markers'
export { AdvisorParams } from './advisor-params'
export {
  BUDGET_KEY,
  OUTPUT_SCHEMA_KEY,
  PENDING_TOOL_CALLS_KEY,
  ROUND_KEY,
  RUN_ID_KEY,
  TOOL_ANSWERS_KEY,
} from './context-keys'
export {
  emitChainEvent,
  errorInfo,
  isChainEventListener,
  newId,
  type ChainEvent,
  type ChainEventListener,
  type ErrorInfo,
} from './events'
export { formatIssues, resolveSchema, type ResolvedSchema, type SchemaLike, type Validation } from './schema/schema'
export type { SchemaIssue } from './schema/json-validator'
export type { FromJsonSchema, Infer } from './schema/infer'
export type { StandardSchemaV1 } from './schema/standard-schema'
export { TraceCollector, fanOut } from './trace/collector'
export {
  TRACE_VERSION,
  type RunStatus,
  type TraceEvent,
  type TraceEventBody,
  type TraceEventOf,
  type TraceEventType,
  type TraceHeader,
  type TraceSink,
  type TracedAdvisor,
  type TracedOptions,
} from './trace/events'
export { ObserverAdvisor, type ObserverAdvisorOptions } from './trace/observer'
export { REDACTED, Redactor, type RedactionRules } from './trace/redact'
export { withPerformanceTrack } from './trace/performance-track'
export {
  StructuredOutputValidationAdvisor,
  StructuredOutputValidationAdvisorBuilder,
  type StructuredOutputValidationAdvisorOptions,
} from './advisors/structured-output'
export { OutputParseError } from './schema/output-parse-error'
export { extractJson } from './schema/extract-json'
export { formatInstructions } from './schema/format-instructions'
export type { EntityOptions } from './client'
export {
  LoopBudgetAdvisor,
  LoopBudgetAdvisorBuilder,
  type BudgetReason,
  type LoopBudgetOptions,
} from './advisors/loop-budget'
export {
  TOOL_SEARCH_NAME,
  ToolSearchToolCallingAdvisor,
  ToolSearchToolCallingAdvisorBuilder,
  type ToolSearchOptions,
} from './advisors/tool-search'
export {
  EvaluationAdvisor,
  EvaluationAdvisorBuilder,
  readJudgement,
  type EvaluationOptions,
  type Judge,
  type JudgeInput,
  type Judgement,
} from './advisors/evaluation'
export {
  OtlpTraceSink,
  exportToOtlp,
  toOtlp,
  type OtlpAttribute,
  type OtlpExportOptions,
  type OtlpOptions,
  type OtlpSpan,
  type OtlpTraceRequest,
} from './trace/otlp'
export {
  ApprovalQueue,
  type ApprovalDecision,
  type ApprovalHandler,
  type ApprovalRequest,
  type PendingApproval,
} from './advisors/approval-queue'
export {
  ToolApprovalAdvisor,
  ToolApprovalAdvisorBuilder,
  type ApprovalPolicy,
  type ToolApprovalOptions,
} from './advisors/tool-approval'
export { OpenAIChatModel, type OpenAIChatModelOptions } from './models/openai'
export { ANTHROPIC_VERSION, AnthropicChatModel, type AnthropicChatModelOptions } from './models/anthropic'
export { ChatModelError, isRetryableStatus, retryAfterMs } from './models/errors'
export { RetryAdvisor, RetryAdvisorBuilder, type RetryOptions } from './advisors/retry'
export {
  TRACE_FILE_FORMAT,
  TraceFileError,
  exportTrace,
  importTrace,
  reconstructMessages,
  type TraceFile,
} from './trace/file'
export { TRACE_FILE_LIMITS } from './trace/limits'
export { ChatMemory, type ChatMemoryRepository } from './memory/chat-memory'
export { InMemoryChatMemoryRepository } from './memory/in-memory-repository'
export {
  IndexedDBChatMemoryRepository,
  MEMORY_DB_VERSION,
  type ConversationInfo,
  type CorruptRecord,
  type IndexedDBChatMemoryRepositoryOptions,
} from './memory/indexeddb-repository'
export { MessageWindowChatMemory, MessageWindowChatMemoryBuilder } from './memory/window'
export {
  MessageChatMemoryAdvisor,
  MessageChatMemoryAdvisorBuilder,
  type MessageChatMemoryAdvisorOptions,
} from './advisors/memory'
export { CASSETTE_FORMAT, cassetteFromTrace, type Cassette, type Interaction } from './replay/cassette'
export { ReplayChatModel, ReplayMismatchError, promptDiff, type ReplayOptions } from './replay/replay-model'
export { summarizeRun, type RunSummary } from './replay/run-summary'
export { connectTestHarness, type HarnessHandle, type InstallableModel } from './testing/harness'
