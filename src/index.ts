export { abortError, isAbortError } from './core'
export { registerSecret } from './core'
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
} from './core'
export { AdvisorChain } from './core'
export { streamOf, streamStage, type StageNext, type StreamLayer, type StreamReader } from './core'
export { ChatClient, ChatClientBuilder, ChatClientRequestSpec, CallResponseSpec, StreamResponseSpec } from './client'
export { agentTool, type AgentToolOptions } from './client'
export {
  createChat,
  type Chat,
  type ChatCommands,
  type ChatFinish,
  type ChatMessageView,
  type ChatPartView,
  type ChatState,
  type ChatStatus,
  type CreateChatOptions,
  type ToolApprovalAnswer,
  type ToolApprovalMark,
  type ToolCallPartView,
  type ToolCallState,
  type ToolCallView,
  type ToolPartOf,
  type ToolParts,
} from './client'
export {
  createStreamedObject,
  type StreamedObject,
  type StreamedObjectCommands,
  type StreamedObjectFinish,
  type StreamedObjectOptions,
  type StreamedObjectState,
} from './client'
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
} from './core'
export {
  assistantMessageOf,
  attachmentsOf,
  filePart,
  imagePart,
  partsOf,
  textPart,
  userMessageOf,
  type AssistantPart,
  type AttachmentPart,
  type FilePart,
  type ImagePart,
  type MessagePart,
  type ReasoningPart,
  type TextPart,
  type ToolCallPart,
  type ToolResultPart,
  type UserPart,
} from './core'
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
} from './core'
export {
  ScriptedChatModel,
  type ScriptFunction,
  type ScriptStep,
  type ScriptedChatModelOptions,
  type ScriptedReply,
  type ScriptedToolCall,
} from './models'
export type { JsonSchema } from './core'
export { ChatResponseAggregator, aggregateChunks } from './core'
export { defineTool, type ToolSpec } from './tools'
export {
  ToolCallingManager,
  ToolCallingManagerBuilder,
  type ToolCallLimits,
  type ToolExecutionEvent,
  type ToolExecutionInit,
  type ToolExecutionResult,
} from './tools'
export type { ToolApprovalRule, ToolCallback, ToolContext, ToolDefinition, ToolMetadata, TypedTool } from './core'
export type { StreamPart, ToolCallDelta } from './core'
export { ToolCallError, ToolCallLimitExceededError } from './tools'
export {
  ToolCallingAdvisor,
  ToolCallingAdvisorBuilder,
  type ToolCallingAdvisorOptions,
  type ToolExecutionEligibilityChecker,
} from './advisors'
export {
  isMemoryAdvisor,
  isToolAdvisor,
  MEMORY_ADVISOR,
  TOOL_ADVISOR,
  type MemoryAdvisor,
  type ToolAdvisor,
} from './advisors'
export { AdvisorParams } from './client'
export { BUDGET_KEY, OUTPUT_SCHEMA_KEY, PENDING_TOOL_CALLS_KEY, ROUND_KEY, RUN_ID_KEY, TOOL_ANSWERS_KEY } from './core'
export {
  emitChainEvent,
  errorInfo,
  isChainEventListener,
  newId,
  type ChainEvent,
  type ChainEventListener,
  type Compaction,
  type Retrieval,
  type RunAdvisor,
  type ToolExecutionEnd,
  type ToolExecutionStart,
  type ErrorInfo,
} from './core'
export { formatIssues, resolveSchema, type ResolvedSchema, type SchemaLike, type Validation } from './schema'
export type { SchemaIssue } from './schema'
export type { DeepPartial, FromJsonSchema, Infer } from './schema'
export type { StandardSchemaV1 } from './schema'
export { TraceCollector, fanOut } from './trace'
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
} from './trace'
export { ObserverAdvisor, type ObserverAdvisorOptions } from './advisors'
export { costOf, type ModelPrice, type Pricing } from './trace'
export { REDACTED, Redactor, type RedactionRules } from './trace'
export { withPerformanceTrack } from './trace'
export {
  StructuredOutputValidationAdvisor,
  StructuredOutputValidationAdvisorBuilder,
  type StructuredOutputValidationAdvisorOptions,
} from './advisors'
export { OutputParseError } from './schema'
export { extractJson } from './schema'
export { partialJsonParser, type PartialJsonOptions, type PartialJsonParser } from './schema'
export { formatInstructions } from './schema'
export type { EntityOptions, PartialEntityStream } from './client'
export { LoopBudgetAdvisor, LoopBudgetAdvisorBuilder, type BudgetReason, type LoopBudgetOptions } from './advisors'
export {
  TOOL_SEARCH_NAME,
  ToolSearchToolCallingAdvisor,
  ToolSearchToolCallingAdvisorBuilder,
  type ToolSearchOptions,
} from './advisors'
export {
  EvaluationAdvisor,
  EvaluationAdvisorBuilder,
  readJudgement,
  type EvaluationOptions,
  type Judge,
  type JudgeInput,
  type Judgement,
} from './advisors'
export {
  OtlpTraceSink,
  exportToOtlp,
  toOtlp,
  type OtlpAttribute,
  type OtlpExportOptions,
  type OtlpOptions,
  type OtlpSpan,
  type OtlpTraceRequest,
} from './trace'
export {
  ApprovalQueue,
  type ApprovalDecision,
  type ApprovalHandler,
  type ApprovalRequest,
  type PendingApproval,
} from './advisors'
export {
  ToolApprovalAdvisor,
  ToolApprovalAdvisorBuilder,
  type ApprovalPolicy,
  type ToolApprovalOptions,
} from './advisors'
export { OpenAIChatModel, type OpenAIChatModelOptions } from './models'
export { OpenAIResponsesChatModel, type OpenAIResponsesChatModelOptions } from './models'
export { ANTHROPIC_VERSION, AnthropicChatModel, type AnthropicChatModelOptions } from './models'
export { ChatModelError, isRetryableStatus, retryAfterMs } from './models'
export { RetryAdvisor, RetryAdvisorBuilder, type RetryOptions } from './advisors'
export {
  ESCALATION_REASONS,
  EscalationAdvisor,
  EscalationAdvisorBuilder,
  EscalationError,
  type EscalationAdvisorOptions,
  type EscalationTest,
} from './advisors'
export type { Escalation, EscalationReason } from './core'
export {
  TRACE_FILE_FORMAT,
  TraceFileError,
  exportTrace,
  importTrace,
  reconstructMessages,
  type TraceFile,
} from './trace'
export { TRACE_FILE_LIMITS } from './trace'
export {
  ChatMemory,
  ChatMemoryError,
  ConversationBusyError,
  type BusyReason,
  type WhenBusy,
  type ChatMemoryErrorCode,
  type ChatMemoryRepository,
} from './memory'
export { InMemoryChatMemoryRepository } from './memory'
export {
  IndexedDBChatMemoryRepository,
  MEMORY_DB_VERSION,
  type ConversationInfo,
  type CorruptRecord,
  type IndexedDBChatMemoryRepositoryOptions,
} from './memory'
export { MessageWindowChatMemory, MessageWindowChatMemoryBuilder } from './memory'
export {
  MessageChatMemoryAdvisor,
  MessageChatMemoryAdvisorBuilder,
  type MessageChatMemoryAdvisorOptions,
} from './advisors'
export {
  CharacterTokenCountEstimator,
  CompositeCompactionTrigger,
  ContextWindowTrigger,
  ContextWindowTriggerBuilder,
  DefaultSessionService,
  EventFilter,
  InMemorySessionRepository,
  IndexedDBSessionRepository,
  RecursiveSummarizationCompactionStrategy,
  RecursiveSummarizationCompactionStrategyBuilder,
  SessionError,
  SlidingWindowCompactionStrategy,
  SlidingWindowCompactionStrategyBuilder,
  TokenCountCompactionStrategy,
  TokenCountCompactionStrategyBuilder,
  TokenCountTrigger,
  TokenCountTriggerBuilder,
  TurnCountTrigger,
  TurnWindowCompactionStrategy,
  TurnWindowCompactionStrategyBuilder,
  isContextOverflow,
  sessionEventTools,
  boundaryOf,
  failedTurnOf,
  type CompactionBoundary,
  type CompactionOptions,
  type CompactionRequest,
  type CompactionResult,
  type CompactionStrategy,
  type CompactionTrigger,
  type CorruptEvent,
  type CreateSessionRequest,
  type DefaultSessionServiceOptions,
  type FailedTurn,
  type IndexedDBSessionRepositoryOptions,
  type Session,
  type SessionErrorCode,
  type SessionEvent,
  type SessionEventToolsOptions,
  type SessionRepository,
  type SessionService,
  type SummarizationFailure,
  type SummaryClient,
  type SummaryRequestSpec,
  type TokenCountEstimator,
  type TokenCounter,
} from './session'
export { SessionMemoryAdvisor, SessionMemoryAdvisorBuilder, type SessionMemoryAdvisorOptions } from './advisors'
export { CASSETTE_FORMAT, cassetteFromTrace, type Cassette, type Interaction } from './trace'
export { ReplayChatModel, ReplayMismatchError, promptDiff, type ReplayOptions } from './replay'
export { summarizeRun, type RunSummary } from './replay'
export { connectTestHarness, type HarnessHandle, type InstallableModel } from './replay'
export { forkRun, type ForkResult, type ForkRunOptions } from './replay'
export { ForkError, forkPlan, type ForkEdits, type ForkPlan, type ForkRunRequest } from './trace'
export { FORK_KEY, type ForkOrigin } from './core'
