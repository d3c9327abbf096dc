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
  contextValue,
  type TurnCheckpoint,
  forkOriginOf,
  streamStage,
} from '../../core'
import { ChatMemory, type WhenBusy } from '../../memory'
import { MEMORY_ADVISOR, type MemoryAdvisor } from '../markers'
import { ApprovalCheckpoint } from './approval-checkpoint'
import { containsRun, memoryEndsWith } from './message-keys'
import { dropUnanswered, loadRepaired } from './repair-on-read'
import { StoringStream } from './storing-stream'
import { TurnQueue } from './turn-queue'
import { whenBusyPolicy } from './when-busy'
import { collectingRounds, ROUNDS_METADATA, withoutRounds } from './turn-rounds'

export interface MessageChatMemoryAdvisorOptions {
  conversationId?: string
  /** Default `HIGHEST_PRECEDENCE + 200`: outside the tool loop. Above `+300` it records the whole transcript. */
  order?: number
  /**
   * What a turn does when another turn holds its conversation: waits for it (default), fails with
   * a ConversationBusyError, or stops it and goes on once its stop settled.
   */
  whenBusy?: WhenBusy
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
  readonly #turns: TurnQueue
  readonly #checkpoint: ApprovalCheckpoint

  constructor(
    readonly chatMemory: ChatMemory,
    options: MessageChatMemoryAdvisorOptions = {},
  ) {
    this.order = options.order ?? MessageChatMemoryAdvisor.DEFAULT_ORDER
    this.#conversationId = options.conversationId ?? ChatMemory.DEFAULT_CONVERSATION_ID
    this.#turns = new TurnQueue(chatMemory, options.whenBusy ?? 'wait')
    this.#checkpoint = new ApprovalCheckpoint(chatMemory)
  }

  static builder(chatMemory: ChatMemory): MessageChatMemoryAdvisorBuilder {
    return new MessageChatMemoryAdvisorBuilder(chatMemory)
  }

  async adviseCall(request: ChatClientRequest, chain: CallAdvisorChain): Promise<ChatClientResponse> {
    if (isFork(request)) return chain.nextCall(request)
    const id = this.#idOf(request.context)
    const turn = await this.#turns.start(request, id)
    let pending: Message[] = []
    try {
      const { advised, toStore } = await this.#before(turn.request, id, chain.callAdvisors)
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
      turn.end()
    }
  }

  /** The answer is stored once, when the stream ends, from the chunks of its last round only. */
  adviseStream(request: ChatClientRequest, chain: StreamAdvisorChain): AsyncIterable<ChatClientResponse> {
    if (isFork(request)) return chain.nextStream(request)
    const id = this.#idOf(request.context)
    const rounds: Message[] = []
    return streamStage(
      new StoringStream(
        () => this.#turns.start(request, id),
        async (held) => {
          const { advised, toStore } = await this.#before(held, id, chain.streamAdvisors)
          return { source: chain.nextStream(collectingRounds(advised, rounds)), toStore }
        },
        (response, context, toStore) => this.#after(response, context, id, chain.streamAdvisors, toStore, rounds),
        (toStore) => this.#keepQuestion(id, toStore),
      ),
    )
  }

  /** The loop ended: a turn that failed or was aborted must not leave a tool call without its response. */
  onChainEvent(event: ChainEvent, context: Readonly<Record<string, unknown>>): void {
    const endTurn = this.#turns.heard(event, context[RUN_ID_KEY] as string)
    if (!endTurn || event.type !== 'tool-loop-end') return
    // A fork never touches the conversation it came from.
    if ((event.reason !== 'error' && event.reason !== 'aborted') || forkOriginOf(context)) return endTurn()
    void dropUnanswered(this.chatMemory, this.#idOf(context))
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
    await this.#checkpoint.save(message, this.#idOf(context))
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
    if (await this.#checkpoint.settles(id, answers)) return
    await this.chatMemory.add(id, [...question, ...answers])
    emitChainEvent(listeners, note(`memory stored the answer`, id, undefined, answers), context, this.name)
  }

  /** The stored conversation, repaired on read (with a warning to the listeners when something was dropped). */
  async #load(
    id: string,
    keepPendingCalls: boolean,
    context: Record<string, unknown>,
    listeners: readonly { name: string; order: number }[],
  ): Promise<Message[]> {
    const { messages, repair } = await loadRepaired(this.chatMemory, id, keepPendingCalls)
    if (repair) {
      const warning: ChainEvent = {
        type: 'note',
        advisor: this.name,
        message: repair.message,
        data: { conversationId: id, ...repair.data },
        level: 'warning',
      }
      emitChainEvent(listeners, warning, context, this.name)
    }
    return messages
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

  /** What a turn does when another turn holds its conversation (default 'wait'). */
  whenBusy(policy: WhenBusy): this {
    this.#options.whenBusy = whenBusyPolicy(policy)
    return this
  }

  build(): MessageChatMemoryAdvisor {
    return new MessageChatMemoryAdvisor(this.chatMemory, { ...this.#options })
  }
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

/** A fork replays a recorded prompt, which holds the conversation already: it neither loads nor stores memory. */
function isFork(request: ChatClientRequest): boolean {
  return forkOriginOf(request.context) !== undefined
}
