import {
  BaseAdvisor,
  ChatClient,
  ContextWindowTrigger,
  EscalationAdvisor,
  HIGHEST_PRECEDENCE,
  LOWEST_PRECEDENCE,
  MessageChatMemoryAdvisor,
  ObserverAdvisor,
  RetryAdvisor,
  SessionMemoryAdvisor,
  TokenCountCompactionStrategy,
  ToolApprovalAdvisor,
  ToolCallingAdvisor,
  type AnyAdvisor,
  type ApprovalQueue,
  type ChatClientRequest,
  type ChatClientResponse,
  type ChatMemory,
  type ChatModel,
  type Pricing,
  type RedactionRules,
  type SessionService,
  type ToolCallback,
  type TraceSink,
} from 'advisor-chain'
import { QuestionAnswerAdvisor, type VectorStore } from 'advisor-chain/retrieval'
import type { Settings } from './settings'
import { researcherTool } from './researcher'
import { demoTools } from './tools'
import { scriptedDemoModel } from './scripted-demo'

/** The remote model of "local first": the scripted one, named as a remote model would be. */
export const FALLBACK_MODEL = 'scripted-remote'

/** Made-up prices for the demo's cost figures: the scripted remote as a small hosted model, the device free. */
const DEMO_PRICING: Pricing = {
  [FALLBACK_MODEL]: { inputPerMTok: 0.15, outputPerMTok: 0.6, cachedInputPerMTok: 0.075 },
  'scripted-demo': { inputPerMTok: 0, outputPerMTok: 0 },
}

/** The engines that run the model in the page: their rounds cost nothing. */
const ON_DEVICE = new Set(['webllm', 'wllama', 'prompt-api'])

/** The demo's prices, with the picked in-browser model (its id as its responses name it) free. */
function pricingFor(model: ChatModel): Pricing {
  const id = (model as { model?: unknown }).model
  if (!ON_DEVICE.has(model.provider) || typeof id !== 'string') return DEMO_PRICING
  return { ...DEMO_PRICING, [id]: { inputPerMTok: 0, outputPerMTok: 0 } }
}

export const LOG_ORDERS = {
  outside: HIGHEST_PRECEDENCE + 100,
  inside: HIGHEST_PRECEDENCE + 350,
  model: LOWEST_PRECEDENCE - 10,
} as const

export type ChainLogEntry =
  | { at: number; order: number; phase: 'request'; messages: number }
  | { at: number; order: number; phase: 'response'; finishReason: string }

/**
 * An advisor that only writes down when a request passes it and when its response comes back: two
 * plain steps on BaseAdvisor (on a stream, `after` sees the chunk that finishes the answer).
 */
class LoggingAdvisor extends BaseAdvisor {
  readonly name = 'Logging Advisor'

  constructor(
    readonly order: number,
    private readonly log: (entry: ChainLogEntry) => void,
  ) {
    super()
  }

  async before(request: ChatClientRequest): Promise<ChatClientRequest> {
    this.log({ at: Date.now(), order: this.order, phase: 'request', messages: request.prompt.messages.length })
    return request
  }

  async after(response: ChatClientResponse): Promise<ChatClientResponse> {
    const finishReason = response.chatResponse?.results[0]?.metadata.finishReason ?? 'none'
    this.log({ at: Date.now(), order: this.order, phase: 'response', finishReason })
    return response
  }
}

/** The window of a model that does not say its own (the offline demo): small, so a session compacts soon. */
export const OFFLINE_WINDOW = 2048

/**
 * Session memory fitted to the model's own window (WebLLM's, llama.cpp's, Chrome's built-in
 * model's): it compacts after a turn that fills 80% of it (system prompt and tools counted),
 * keeping the newest whole turns that fit in a quarter of it. Covered turns stay in the log (the chat shows them above a marker).
 */
function sessionMemory(sessions: SessionService, model: ChatModel): SessionMemoryAdvisor {
  const window = model.contextWindow ?? OFFLINE_WINDOW
  const trigger = ContextWindowTrigger.builder().fraction(0.8)
  if (model.contextWindow === undefined) trigger.contextWindow(OFFLINE_WINDOW)
  return SessionMemoryAdvisor.builder(sessions)
    .compactionTrigger(trigger.build())
    .compactionStrategy(
      TokenCountCompactionStrategy.builder()
        .maxTokens(Math.floor(window / 4))
        .build(),
    )
    .build()
}

/** The demo's ChatClient: the model, the browser tools, MCP tools, and the advisors the switches ask for. */
export function buildClient(options: {
  model: ChatModel
  settings: Settings
  sink: TraceSink
  approvals: ApprovalQueue
  memory: ChatMemory
  /** The sessions of "Memory: session". */
  sessions: SessionService
  log: (entry: ChainLogEntry) => void
  /** Tools of connected MCP servers, and the masking for the secrets they were given. */
  mcp?: { tools: ToolCallback[]; redact: RedactionRules }
  /** Documents to answer from (files dropped on the page), through a QuestionAnswerAdvisor. */
  documents?: VectorStore | undefined
}): ChatClient {
  const { model, settings, sink, approvals, memory, sessions, log, mcp, documents } = options
  const advisors: AnyAdvisor[] = [
    new ObserverAdvisor({
      sink,
      pricing: pricingFor(model),
      ...(mcp ? { redact: mcp.redact } : {}),
      order: settings.observerInside ? ObserverAdvisor.DEFAULT_ORDER : HIGHEST_PRECEDENCE + 100,
    }),
  ]
  if (settings.memory === 'session') advisors.push(sessionMemory(sessions, model))
  else if (settings.memory !== 'off') {
    advisors.push(
      MessageChatMemoryAdvisor.builder(memory)
        .order(settings.memory === 'inside' ? HIGHEST_PRECEDENCE + 350 : MessageChatMemoryAdvisor.DEFAULT_ORDER)
        .build(),
    )
  }
  if (documents) advisors.push(QuestionAnswerAdvisor.builder(documents).topK(3).build())
  if (settings.retry) advisors.push(RetryAdvisor.builder().maxAttempts(3).initialDelayMs(400).build())
  if (settings.approval)
    advisors.push(ToolApprovalAdvisor.builder().policy('delete_note', 'always').handler(approvals.handler).build())
  if (settings.localFirst)
    advisors.push(
      EscalationAdvisor.builder(scriptedDemoModel({ model: FALLBACK_MODEL }))
        .firstTokenTimeoutMs(30_000)
        .build(),
    )
  if (settings.logging !== 'off') advisors.push(new LoggingAdvisor(LOG_ORDERS[settings.logging], log))
  return ChatClient.builder(model)
    .defaultSystem(
      'You are the assistant of the advisor-chain demo page. Use the tools for anything about time, notes, the page theme, arithmetic and random numbers; hand research about this page to the researcher. Keep answers short.',
    )
    .defaultTools(...demoTools, researcherTool(model), ...(mcp?.tools ?? []))
    .defaultAdvisors(...advisors)
    .toolCallingAdvisor(
      ToolCallingAdvisor.builder().conversationHistoryEnabled(settings.loopHistory).maxIterations(settings.maxRounds),
    )
    .build()
}
