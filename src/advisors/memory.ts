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
  type ChainEvent,
  type ChainEventListener,
  type AssistantMessage,
  type Message,
  type ChatResponse,
  ChatResponseAggregator,
  contextValue,
  type TurnCheckpoint,
  forkOriginOf,
  streamStage,
  callerStream,
  type StreamLayer,
  isMessage,
  isBlob,
  TURN_ROUNDS_KEY,
} from '../core'
import { ChatMemory, ConversationQueue, dropOrphans, type TurnHolder } from '../memory'
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
  /** Inside the tool loop a turn spans many rounds: the end of its conversation's turn, by run id. */
  readonly #turnsHeld = new Map<string, () => void>()
  /** Tools running now, by run id: a turn asked from one of them must not wait for its own run. */
  readonly #toolsRunning = new Map<string, number>()

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
    const endTurn = await this.#startTurn(request, id)
    let pending: Message[] = []
    try {
      const { advised, toStore } = await this.#before(request, id, chain.callAdvisors)
      pending = toStore
      const rounds: Message[] = []
      const response = await chain.nextCall(collectingRounds(advised, rounds))
      pending = []
      await this.#after(response.chatResponse, response.context, id, chain.callAdvisors, toStore, rounds)
      return response
    } catch (error) {
      await this.#keepQuestion(id, pending)
      throw error
    } finally {
      endTurn()
    }
  }

  /** The answer is stored once, when the stream ends, from the chunks of its last round only. */
  adviseStream(request: ChatClientRequest, chain: StreamAdvisorChain): AsyncIterable<ChatClientResponse> {
    if (isFork(request)) return chain.nextStream(request)
    const id = this.#idOf(request.context)
    const rounds: Message[] = []
    return streamStage(
      new StoringStream(
        () => this.#startTurn(request, id),
        async () => {
          const { advised, toStore } = await this.#before(request, id, chain.streamAdvisors)
          return { source: chain.nextStream(collectingRounds(advised, rounds)), toStore }
        },
        (response, context, toStore) => this.#after(response, context, id, chain.streamAdvisors, toStore, rounds),
        (toStore) => this.#keepQuestion(id, toStore),
      ),
    )
  }

  /**
   * Turns on one conversation run one after another (two overlapping turns would interleave their
   * messages). Outside the tool loop a turn is this call; inside, it lasts until the loop ends.
   * Returns what ends the turn here, a no-op when the loop's end does it.
   */
  async #startTurn(request: ChatClientRequest, id: string): Promise<() => void> {
    const runId = request.context[RUN_ID_KEY] as string
    const inLoop = typeof request.context[ROUND_KEY] === 'number'
    if (inLoop && this.#turnsHeld.has(runId)) return () => {}
    const tools = this.#toolsRunning
    const holder: TurnHolder = {
      runId,
      get runningTools() {
        return (tools.get(runId) ?? 0) > 0
      },
      stream: callerStream(request.signal),
    }
    // In this page, then across tabs when the memory's storage is shared with them.
    const endTurn = await turnsOf(this.chatMemory).acquire(id, request.signal, holder)
    if (!inLoop) return endTurn
    this.#turnsHeld.set(runId, endTurn)
    return () => {}
  }

  /** The loop ended: a turn that failed or was aborted must not leave a tool call without its response. */
  onChainEvent(event: ChainEvent, context: Readonly<Record<string, unknown>>): void {
    const runId = context[RUN_ID_KEY] as string
    if (event.type === 'tool-execution-start' || event.type === 'tool-execution-end') {
      const running = (this.#toolsRunning.get(runId) ?? 0) + (event.type === 'tool-execution-start' ? 1 : -1)
      if (running > 0) this.#toolsRunning.set(runId, running)
      else this.#toolsRunning.delete(runId)
      return
    }
    if (event.type !== 'tool-loop-end') return
    this.#toolsRunning.delete(runId)
    const endTurn = this.#turnsHeld.get(runId)
    if (!endTurn) return
    this.#turnsHeld.delete(runId)
    // A fork never touches the conversation it came from.
    if ((event.reason !== 'error' && event.reason !== 'aborted') || forkOriginOf(context)) return endTurn()
    void this.#dropOrphans(this.#idOf(context))
      .catch((error: unknown) => console.error('Chat memory could not close an interrupted turn', error))
      .finally(endTurn)
  }

  async #before(
    request: ChatClientRequest,
    id: string,
    listeners: readonly { name: string; order: number }[],
  ): Promise<{ advised: ChatClientRequest; toStore: Message[] }> {
    const prompt = request.prompt.messages
    const last = prompt.at(-1)
    // Unanswered tool calls at the end are a turn to resume, unless a new user message abandons it.
    const memory = await this.#load(id, last?.role !== 'user', request.context, listeners)
    const messages = containsRun(prompt, memory) ? [...prompt] : [...memory.map(withoutRounds), ...prompt]
    const systemIndex = messages.findIndex((message) => message.role === 'system')
    if (systemIndex > 0) messages.unshift(...messages.splice(systemIndex, 1))
    const stored =
      last && (last.role === 'user' || last.role === 'tool') && !(last.role === 'user' && memoryEndsWith(memory, last))
        ? [last]
        : []
    // Inside the loop each step is stored at once (a reload resumes the turn); outside, the user
    // message waits for the answer, and the two are stored in one step at the end of the turn.
    const inLoop = typeof request.context[ROUND_KEY] === 'number'
    if (inLoop && stored.length > 0) await this.chatMemory.add(id, stored)
    emitChainEvent(
      listeners,
      note(`memory loaded ${memory.length} message${memory.length === 1 ? '' : 's'}`, id, memory.length, stored),
      request.context,
      this.name,
    )
    return { advised: { ...request, prompt: { ...request.prompt, messages } }, toStore: inLoop ? [] : stored }
  }

  /** A turn that failed or was stopped before its answer keeps its question (outside the loop, nothing else of it was stored). */
  async #keepQuestion(id: string, toStore: readonly Message[]): Promise<void> {
    if (toStore.length === 0) return
    await this.chatMemory
      .add(id, [...toStore])
      .catch((error: unknown) =>
        console.error(`Chat memory could not keep the question of a failed turn in '${id}'`, error),
      )
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
    question: readonly Message[] = [],
    rounds?: readonly Message[],
  ): Promise<void> {
    // A replayed turn (resumed after a reload) is already in memory.
    const answers: AssistantMessage[] =
      response && response.metadata['resumed'] !== true ? response.results.map((generation) => generation.output) : []
    // Outside the loop only the answer is stored; the rounds before it go with it, for a chat to show.
    if (rounds?.length && answers.length === 1)
      answers[0] = { ...answers[0]!, metadata: { ...answers[0]!.metadata, [ROUNDS_METADATA]: [...rounds] } }
    if (answers.length === 0) return this.#keepQuestion(id, question)
    if (this.#savedBeforeApproval.delete(id) && answers.length === 1) {
      const memory = await this.chatMemory.get(id)
      const saved = memory.at(-1)
      if (saved && JSON.stringify(saved) === JSON.stringify(answers[0])) return
      if (saved?.role === 'assistant' && sameCalls(saved, answers[0]!)) {
        // Saved before an approval, then decided (its marks) or edited by the user: the decided message replaces it.
        await this.#replace(id, memory, (window) => [...window.slice(0, -1), answers[0]!])
        return
      }
    }
    await this.chatMemory.add(id, [...question, ...answers])
    emitChainEvent(listeners, note(`memory stored the answer`, id, undefined, answers), context, this.name)
  }

  /**
   * The stored conversation, repaired on read: a tool call without its response (a turn cut short,
   * a record lost) or a response without its call is dropped and the repair saved, with a warning.
   */
  async #load(
    id: string,
    keepPendingCalls: boolean,
    context: Record<string, unknown>,
    listeners: readonly { name: string; order: number }[],
  ): Promise<Message[]> {
    const read = await this.chatMemory.get(id)
    // What a repository gives that is not a message is skipped, never a TypeError on every turn.
    const stored = read.filter(isMessage)
    const skipped = read.length - stored.length
    const { messages, dropped } = dropOrphans(stored, keepPendingCalls)
    if (dropped === 0 && skipped === 0) return stored
    await this.#replace(id, read, (window) => dropOrphans(window.filter(isMessage), keepPendingCalls).messages)
    const what = [
      ...(dropped > 0
        ? [
            `${dropped} tool call${dropped === 1 ? '' : 's'} or response${dropped === 1 ? '' : 's'} without ${dropped === 1 ? 'its' : 'their'} counterpart`,
          ]
        : []),
      ...(skipped > 0
        ? [`${skipped} stored value${skipped === 1 ? '' : 's'} that ${skipped === 1 ? 'is' : 'are'} not a message`]
        : []),
    ].join(' and ')
    const warning: ChainEvent = {
      type: 'note',
      advisor: this.name,
      message: `memory dropped ${what}`,
      data: { conversationId: id, dropped, ...(skipped > 0 ? { skipped } : {}) },
      level: 'warning',
    }
    emitChainEvent(listeners, warning, context, this.name)
    return messages
  }

  /** After a failed or aborted turn: what the tools did not answer is dropped, never answered with made-up text. */
  async #dropOrphans(id: string): Promise<void> {
    const read = await this.chatMemory.get(id)
    if (dropOrphans(read.filter(isMessage), false).dropped > 0)
      await this.#replace(id, read, (window) => dropOrphans(window.filter(isMessage), false).messages)
  }

  /**
   * Replaces the stored window with `change(window)` in one atomic step, so no reader (another tab,
   * a page closed half-way) ever sees the conversation empty. A ChatMemory without `update` is
   * cleared and written again, from `read` (what it gave just before).
   */
  async #replace(id: string, read: Message[], change: (window: Message[]) => Message[]): Promise<void> {
    if (this.chatMemory.update) return this.chatMemory.update(id, change)
    const messages = change(read)
    await this.chatMemory.clear(id)
    if (messages.length > 0) await this.chatMemory.add(id, messages)
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

// Shared by every advisor on one ChatMemory (or, when its storage is shared with other tabs, on
// that storage), so two clients on one conversation take turns too.
const turns = new WeakMap<ChatMemory, ConversationQueue>()
const sharedTurns = new Map<string, ConversationQueue>()

function turnsOf(memory: ChatMemory): ConversationQueue {
  const shared = memory.sharedStorageName
  if (shared !== undefined) {
    let queue = sharedTurns.get(shared)
    if (!queue) sharedTurns.set(shared, (queue = new ConversationQueue(shared)))
    return queue
  }
  let queue = turns.get(memory)
  if (!queue) turns.set(memory, (queue = new ConversationQueue()))
  return queue
}

/** Whether `run` appears, in order and without gaps, somewhere in `messages` (compared by content). */
function containsRun(messages: readonly Message[], run: readonly Message[]): boolean {
  if (run.length === 0) return true
  if (run.length > messages.length) return false
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

/**
 * The key of the answer's metadata where memory outside the tool loop keeps the turn's rounds (the
 * assistant messages with tool calls and their results) for a chat UI to show after a reload; they
 * are never sent to the model again (`toViews` in `advisor-chain/react` reads them).
 */
export const ROUNDS_METADATA = 'rounds'

/** Outside the tool loop, the request with `rounds` for the loop to fill with the turn's rounds; inside, as it is. */
function collectingRounds(request: ChatClientRequest, rounds: Message[]): ChatClientRequest {
  if (typeof request.context[ROUND_KEY] === 'number') return request
  return { ...request, context: { ...request.context, [TURN_ROUNDS_KEY]: rounds } }
}

/** A stored message as the model gets it: the rounds kept for display stay in memory. */
function withoutRounds(message: Message): Message {
  if (message.role !== 'assistant' || !message.metadata || !(ROUNDS_METADATA in message.metadata)) return message
  const { [ROUNDS_METADATA]: _rounds, ...metadata } = message.metadata
  return { ...message, metadata }
}

function memoryEndsWith(memory: readonly Message[], message: Message): boolean {
  const last = memory.at(-1)
  return last !== undefined && key(last) === key(message)
}

function key(message: Message): string {
  const { metadata: _metadata, ...content } = message
  try {
    return JSON.stringify(content, blobKey)
  } catch {
    // Not plain data (a BigInt, a cycle) from a repository: equal to nothing rather than a throw on every turn.
    return `unkeyable ${++unkeyable}`
  }
}

let unkeyable = 0

/**
 * A Blob in a message's key: JSON would make every Blob `{}`, so a question sent again with another
 * image would count as the one stored. A Blob read back from IndexedDB is a new object with the same
 * type, size and (a File's) name and date, so those are its key.
 */
function blobKey(_key: string, value: unknown): unknown {
  if (!isBlob(value)) return value
  const file = value as Partial<File>
  return `blob ${value.type} ${value.size} ${file.name ?? ''} ${file.lastModified ?? ''}`
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
class StoringStream implements StreamLayer<ChatClientResponse> {
  readonly passesOn = 'unchanged'
  #aggregator = new ChatResponseAggregator()
  #round: unknown
  #context: Record<string, unknown> = {}
  #endTurn: (() => void) | undefined
  #stopped = false
  /** What the turn stores with its answer (outside the loop: the user message). */
  #toStore: Message[] = []

  constructor(
    private readonly startTurn: () => Promise<() => void>,
    private readonly before: () => Promise<{ source: AsyncIterable<ChatClientResponse>; toStore: Message[] }>,
    private readonly store: (
      response: ChatResponse | null,
      context: Record<string, unknown>,
      toStore: Message[],
    ) => Promise<void>,
    private readonly keepQuestion: (toStore: Message[]) => Promise<void>,
  ) {}

  async open(): Promise<AsyncIterable<ChatClientResponse>> {
    const endTurn = await this.startTurn()
    // Stopped while waiting for the conversation's turn: it is given back at once.
    if (this.#stopped) endTurn()
    else this.#endTurn = endTurn
    const { source, toStore } = await this.before()
    this.#toStore = toStore
    return source
  }

  chunk(chunk: ChatClientResponse): ChatClientResponse {
    this.#context = chunk.context
    // Text streamed by earlier rounds of the tool loop (a preamble before tool calls) is not the answer.
    const round = chunk.context[ROUND_KEY]
    if (round !== this.#round) {
      this.#round = round
      this.#aggregator = new ChatResponseAggregator()
    }
    if (chunk.chatResponse) this.#aggregator.add(chunk.chatResponse)
    return chunk
  }

  async end(): Promise<void> {
    const toStore = this.#takeToStore()
    try {
      await this.store(this.#aggregator.chunkCount > 0 ? this.#aggregator.result() : null, this.#context, toStore)
    } finally {
      this.#finish()
    }
  }

  async fail(error: unknown): Promise<never> {
    await this.keepQuestion(this.#takeToStore())
    this.#finish()
    throw error
  }

  stop(): void {
    this.#stopped = true
    // The question is kept before the turn is given back, so the next turn finds it.
    void this.keepQuestion(this.#takeToStore()).finally(() => this.#finish())
  }

  #takeToStore(): Message[] {
    const toStore = this.#toStore
    this.#toStore = []
    return toStore
  }

  #finish(): void {
    const endTurn = this.#endTurn
    this.#endTurn = undefined
    endTurn?.()
  }
}

/** A fork replays a recorded prompt, which holds the conversation already: it neither loads nor stores memory. */
function isFork(request: ChatClientRequest): boolean {
  return forkOriginOf(request.context) !== undefined
}
