import {
  HIGHEST_PRECEDENCE,
  type CallAdvisor,
  type CallAdvisorChain,
  type ChatClientRequest,
  type ChatClientResponse,
  type StreamAdvisor,
  type StreamAdvisorChain,
  ROUND_KEY,
  RUN_ID_KEY,
  emitChainEvent,
  newId,
  type ChainEvent,
  type ChainEventListener,
  toolResponseMessage,
  type AssistantMessage,
  type Message,
  type ChatResponse,
  ChatResponseAggregator,
  contextValue,
  type TurnCheckpoint,
  forkOriginOf,
} from '../core'
import { ChatMemory } from '../memory'
import { MEMORY_ADVISOR, type MemoryAdvisor } from './markers'

export interface MessageChatMemoryAdvisorOptions {
  conversationId?: string
  /** Default `HIGHEST_PRECEDENCE + 200`: outside the tool loop. Above `+300` it records the whole transcript. */
  order?: number
}

/**
 * Chat memory as an advisor: before a call it loads the conversation and puts it in front of the
 * prompt, and stores the new user (or tool) message; after, it stores the answer. Outside the tool
 * loop it records the user message and the final answer; inside, every round's messages.
 */
export class MessageChatMemoryAdvisor
  implements CallAdvisor, StreamAdvisor, MemoryAdvisor, ChainEventListener, TurnCheckpoint
{
  static readonly DEFAULT_ORDER = HIGHEST_PRECEDENCE + 200

  readonly [MEMORY_ADVISOR] = true as const
  readonly name = 'Message Chat Memory Advisor'
  readonly order: number
  readonly #conversationId: string
  /** Conversations whose latest answer was saved before a tool approval (see checkpointTurn). */
  readonly #savedBeforeApproval = new Set<string>()

  constructor(
    readonly chatMemory: ChatMemory,
    options: MessageChatMemoryAdvisorOptions = {},
  ) {
    this.order = options.order ?? MessageChatMemoryAdvisor.DEFAULT_ORDER
    this.#conversationId = options.conversationId ?? ChatMemory.DEFAULT_CONVERSATION_ID
  }

  static builder(chatMemory: ChatMemory): MessageChatMemoryAdvisorBuilder {
    return new MessageChatMemoryAdvisorBuilder(chatMemory)
  }

  async adviseCall(request: ChatClientRequest, chain: CallAdvisorChain): Promise<ChatClientResponse> {
    if (isFork(request)) return chain.nextCall(request)
    const id = this.#idOf(request.context)
    const advised = await this.#before(withRunId(request), id, chain.callAdvisors)
    const response = await chain.nextCall(advised)
    await this.#after(response.chatResponse, response.context, id, chain.callAdvisors)
    return response
  }

  /** The answer is stored once, when the stream ends, from the chunks of its last round only. */
  adviseStream(request: ChatClientRequest, chain: StreamAdvisorChain): AsyncIterable<ChatClientResponse> {
    if (isFork(request)) return chain.nextStream(request)
    const id = this.#idOf(request.context)
    return new StoringStream(
      async () => chain.nextStream(await this.#before(withRunId(request), id, chain.streamAdvisors)),
      (response, context) => this.#after(response, context, id, chain.streamAdvisors),
    )
  }

  /** A turn that failed or was aborted must not leave a tool call without its response in memory. */
  onChainEvent(event: ChainEvent, context: Readonly<Record<string, unknown>>): void {
    if (event.type !== 'tool-loop-end' || (event.reason !== 'error' && event.reason !== 'aborted')) return
    if (forkOriginOf(context)) return
    const id = this.#idOf(context)
    void this.#answerOrphans(id, event.reason).catch((error: unknown) =>
      console.error('Chat memory could not close an interrupted turn', error),
    )
  }

  async #before(
    request: ChatClientRequest,
    id: string,
    listeners: readonly { name: string; order: number }[],
  ): Promise<ChatClientRequest> {
    const prompt = request.prompt.messages
    const last = prompt.at(-1)
    // A new user message while memory still ends with unanswered tool calls (a turn lost to a reload).
    if (last?.role === 'user') await this.#answerOrphans(id, 'lost')
    const memory = await this.chatMemory.get(id)
    const messages = containsRun(prompt, memory) ? [...prompt] : [...memory, ...prompt]
    const systemIndex = messages.findIndex((message) => message.role === 'system')
    if (systemIndex > 0) messages.unshift(...messages.splice(systemIndex, 1))
    const stored =
      last && (last.role === 'user' || last.role === 'tool') && !(last.role === 'user' && memoryEndsWith(memory, last))
        ? [last]
        : []
    if (stored.length > 0) await this.chatMemory.add(id, stored)
    emitChainEvent(
      listeners,
      note(`memory loaded ${memory.length} message${memory.length === 1 ? '' : 's'}`, id, memory.length, stored),
      request.context,
      this.name,
    )
    return { ...request, prompt: { ...request.prompt, messages } }
  }

  /**
   * Inside the tool loop, a tool approval may keep a round waiting for the user: the assistant
   * message is saved before it waits (so a reload can resume), and replaced if the user edits it.
   */
  async checkpointTurn(message: AssistantMessage, context: Readonly<Record<string, unknown>>): Promise<void> {
    if (typeof contextValue(context, ROUND_KEY) !== 'number') return
    const id = this.#idOf(context)
    if (!memoryEndsWith(await this.chatMemory.get(id), message)) await this.chatMemory.add(id, [message])
    this.#savedBeforeApproval.add(id)
  }

  async #after(
    response: ChatResponse | null,
    context: Record<string, unknown>,
    id: string,
    listeners: readonly { name: string; order: number }[],
  ): Promise<void> {
    // A replayed turn (resumed after a reload) is already in memory.
    if (!response || response.metadata['resumed'] === true) return
    const answers: AssistantMessage[] = response.results.map((generation) => generation.output)
    if (answers.length === 0) return
    if (this.#savedBeforeApproval.delete(id) && answers.length === 1) {
      const memory = await this.chatMemory.get(id)
      if (memoryEndsWith(memory, answers[0]!)) return
      const saved = memory.at(-1)
      if (saved?.role === 'assistant' && sameCalls(saved, answers[0]!)) {
        // Saved before an approval, then edited by the user: the edited message replaces it.
        await this.chatMemory.clear(id)
        await this.chatMemory.add(id, [...memory.slice(0, -1), answers[0]!])
        return
      }
    }
    await this.chatMemory.add(id, answers)
    emitChainEvent(listeners, note(`memory stored the answer`, id, undefined, answers), context, this.name)
  }

  async #answerOrphans(id: string, why: 'error' | 'aborted' | 'lost'): Promise<void> {
    const memory = await this.chatMemory.get(id)
    const answered = new Set(
      memory.flatMap((message) => (message.role === 'tool' ? message.responses.map((response) => response.id) : [])),
    )
    const lastAssistant = memory.findLast((message): message is AssistantMessage => message.role === 'assistant')
    const orphans = lastAssistant?.toolCalls.filter((call) => !answered.has(call.id)) ?? []
    if (orphans.length === 0) return
    const reason =
      why === 'aborted'
        ? 'the turn was stopped'
        : why === 'error'
          ? 'the turn failed'
          : 'the page was closed or reloaded'
    await this.chatMemory.add(id, [
      toolResponseMessage(
        orphans.map((call) => ({
          id: call.id,
          name: call.name,
          responseData: `Error: no result: ${reason} before this tool answered.`,
        })),
      ),
    ])
  }

  #idOf(context: Readonly<Record<string, unknown>>): string {
    const fromContext = context[ChatMemory.CONVERSATION_ID]
    return typeof fromContext === 'string' && fromContext !== '' ? fromContext : this.#conversationId
  }
}

export class MessageChatMemoryAdvisorBuilder {
  readonly #options: MessageChatMemoryAdvisorOptions = {}

  constructor(private readonly chatMemory: ChatMemory) {}

  conversationId(id: string): this {
    this.#options.conversationId = id
    return this
  }

  order(order: number): this {
    this.#options.order = order
    return this
  }

  build(): MessageChatMemoryAdvisor {
    return new MessageChatMemoryAdvisor(this.chatMemory, { ...this.#options })
  }
}

/** A run id from the start, so what memory reports before the tool loop starts belongs to the run. */
function withRunId(request: ChatClientRequest): ChatClientRequest {
  return RUN_ID_KEY in request.context
    ? request
    : { ...request, context: { ...request.context, [RUN_ID_KEY]: newId() } }
}

/** Whether `run` appears, in order and without gaps, somewhere in `messages` (compared by content). */
function containsRun(messages: readonly Message[], run: readonly Message[]): boolean {
  if (run.length === 0) return true
  const keys = messages.map(key)
  const wanted = run.map(key)
  outer: for (let start = 0; start + wanted.length <= keys.length; start++) {
    for (let i = 0; i < wanted.length; i++) if (keys[start + i] !== wanted[i]) continue outer
    return true
  }
  return false
}

function sameCalls(saved: AssistantMessage, answer: AssistantMessage): boolean {
  return (
    saved.toolCalls.length > 0 &&
    saved.toolCalls.length === answer.toolCalls.length &&
    saved.toolCalls.every((call, index) => call.id === answer.toolCalls[index]!.id)
  )
}

function memoryEndsWith(memory: readonly Message[], message: Message): boolean {
  const last = memory.at(-1)
  return last !== undefined && key(last) === key(message)
}

function key(message: Message): string {
  const { metadata: _metadata, ...content } = message
  return JSON.stringify(content)
}

function note(
  message: string,
  conversationId: string,
  loaded: number | undefined,
  stored: readonly Message[],
): ChainEvent {
  return {
    type: 'note',
    advisor: 'Message Chat Memory Advisor',
    message,
    data: { conversationId, ...(loaded !== undefined ? { loaded } : {}), stored: stored.map((item) => item.role) },
  }
}

/** Passes a stream through and stores its answer once it ends: the aggregate of its last round. */
class StoringStream implements AsyncIterableIterator<ChatClientResponse> {
  #source: AsyncIterator<ChatClientResponse> | undefined
  #aggregator = new ChatResponseAggregator()
  #round: unknown
  #context: Record<string, unknown> = {}

  constructor(
    private readonly open: () => Promise<AsyncIterable<ChatClientResponse>>,
    private readonly store: (response: ChatResponse | null, context: Record<string, unknown>) => Promise<void>,
  ) {}

  [Symbol.asyncIterator](): this {
    return this
  }

  async next(): Promise<IteratorResult<ChatClientResponse>> {
    this.#source ??= (await this.open())[Symbol.asyncIterator]()
    const step = await this.#source.next()
    if (step.done) {
      await this.store(this.#aggregator.chunkCount > 0 ? this.#aggregator.result() : null, this.#context)
      return step
    }
    const chunk = step.value
    this.#context = chunk.context
    // Text streamed by earlier rounds of the tool loop (a preamble before tool calls) is not the answer.
    const round = chunk.context[ROUND_KEY]
    if (round !== this.#round) {
      this.#round = round
      this.#aggregator = new ChatResponseAggregator()
    }
    if (chunk.chatResponse) this.#aggregator.add(chunk.chatResponse)
    return step
  }

  async return(): Promise<IteratorResult<ChatClientResponse>> {
    await this.#source?.return?.()
    return { done: true, value: undefined }
  }
}

/** A fork replays a recorded prompt, which holds the conversation already: it neither loads nor stores memory. */
function isFork(request: ChatClientRequest): boolean {
  return forkOriginOf(request.context) !== undefined
}
