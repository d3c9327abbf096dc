import {
  setOption,
  HIGHEST_PRECEDENCE,
  ROUND_KEY,
  RUN_ID_KEY,
  TURN_ROUNDS_KEY,
  forkOriginOf,
  modelOf,
  newId,
  streamStage,
  type CallAdvisor,
  type CallAdvisorChain,
  type ChainEvent,
  type ChainEventListener,
  type ChatClientRequest,
  type ChatClientResponse,
  type Message,
  type StageNext,
  type StreamAdvisor,
  type StreamAdvisorChain,
  type StreamLayer,
} from '../../core'
import { ChatMemory, type WhenBusy } from '../../memory'
import {
  CharacterTokenCountEstimator,
  DefaultSessionService,
  EventFilter,
  SESSION_BRANCH_KEY,
  type CompactionStrategy,
  type CompactionTrigger,
  type SessionService,
  type TokenCountEstimator,
} from '../../session'
import { LastRoundAnswer } from './last-round-answer'
import { SessionTurn, type TurnSettings } from './session-turn'
import { type HeldTurn, TurnQueue } from './turn-queue'
import { whenBusyPolicy } from './when-busy'

export interface SessionMemoryAdvisorOptions {
  defaultSessionId?: string
  defaultUserId?: string
  compactionTrigger?: CompactionTrigger
  compactionStrategy?: CompactionStrategy
  /** Narrows the view the model is given (it is always the active view). */
  eventFilter?: EventFilter
  /** Default the session service's, else one that learns from the model's reported usage. */
  tokenCountEstimator?: TokenCountEstimator
  /** Default `HIGHEST_PRECEDENCE + 200`: outside the tool loop. Above `+300` it stores every round. */
  order?: number
  /**
   * What a turn does when another turn holds its session (or its branch): waits for it (default),
   * fails with a ConversationBusyError, or stops it and goes on once its stop settled.
   */
  whenBusy?: WhenBusy
}

/**
 * Session memory as an advisor (Spring AI's `SessionMemoryAdvisor`): it finds or creates the
 * session, refuses a request of another user than the session's, gives the model the session's
 * active view (system messages first), stores the user message before the call and the answer after
 * (outside the tool loop with the turn's tool rounds), then compacts when its trigger fires. When the
 * model refuses a prompt as longer than its window, the view is compacted to fit and the round is
 * sent once more; a turn that fails stays in the log but leaves the view. Turns on one session
 * (one branch of it) take turns, as `whenBusy` says.
 */
export class SessionMemoryAdvisor implements CallAdvisor, StreamAdvisor, ChainEventListener {
  static readonly DEFAULT_ORDER = HIGHEST_PRECEDENCE + 200
  /** The advisor param naming the session: the same key as `ChatMemory.CONVERSATION_ID`. */
  static readonly SESSION_ID_CONTEXT_KEY = ChatMemory.CONVERSATION_ID
  /** The advisor param naming the user the request is made for. */
  static readonly USER_ID_CONTEXT_KEY = 'chat_memory_user_id'
  /** The advisor param naming a sub-agent's branch: it writes there and sees its branch and the root events. */
  static readonly BRANCH_CONTEXT_KEY = SESSION_BRANCH_KEY
  static readonly DEFAULT_SESSION_ID = ChatMemory.DEFAULT_CONVERSATION_ID

  readonly name = 'Session Memory Advisor'
  readonly order: number
  readonly #options: SessionMemoryAdvisorOptions
  readonly #estimator: TokenCountEstimator
  readonly #turnsInLoop = new Map<string, string>()
  /** Turns in progress inside the tool loop, by run id: a loop that ends in an error fails them. */
  readonly #loopTurns = new Map<string, SessionTurn>()
  readonly #turns: TurnQueue

  constructor(
    readonly sessionService: SessionService,
    options: SessionMemoryAdvisorOptions = {},
  ) {
    if ((options.compactionTrigger === undefined) !== (options.compactionStrategy === undefined))
      throw new TypeError('compactionTrigger and compactionStrategy must be set together')
    this.#options = options
    this.order = options.order ?? SessionMemoryAdvisor.DEFAULT_ORDER
    this.#turns = new TurnQueue(sessionService, options.whenBusy ?? 'wait')
    this.#estimator =
      options.tokenCountEstimator ??
      (sessionService instanceof DefaultSessionService
        ? sessionService.tokenCountEstimator
        : new CharacterTokenCountEstimator())
  }

  static builder(sessionService: SessionService): SessionMemoryAdvisorBuilder {
    return new SessionMemoryAdvisorBuilder(sessionService)
  }

  async adviseCall(request: ChatClientRequest, chain: CallAdvisorChain): Promise<ChatClientResponse> {
    if (forkOriginOf(request.context)) return chain.nextCall(request)
    const held = await this.#start(request)
    const turn = this.#turn(held.request, chain.callAdvisors)
    try {
      const rounds: Message[] = []
      let advised = collectingRounds(await turn.before(), rounds)
      let response: ChatClientResponse
      try {
        response = await chain.nextCall(advised)
      } catch (error) {
        const again = await turn.retry(error)
        if (!again) throw error
        rounds.length = 0
        advised = collectingRounds(again, rounds)
        response = await chain.nextCall(advised)
      }
      await turn.after(response.chatResponse, rounds)
      return response
    } catch (error) {
      await turn.failed(error)
      throw error
    } finally {
      held.end()
    }
  }

  adviseStream(request: ChatClientRequest, chain: StreamAdvisorChain): AsyncIterable<ChatClientResponse> {
    if (forkOriginOf(request.context)) return chain.nextStream(request)
    return streamStage(
      new SessionStream(
        () => this.#start(request),
        (held) => this.#turn(held, chain.streamAdvisors),
        chain,
      ),
    )
  }

  /**
   * A tool loop that ends in an error or an abort between rounds fails its turn in progress; inside
   * the loop, the session is given back then.
   */
  onChainEvent(event: ChainEvent, context: Readonly<Record<string, unknown>>): void {
    const runId = String(context[RUN_ID_KEY])
    const endTurn = this.#turns.heard(event, runId) ?? (() => {})
    if (event.type !== 'tool-loop-end') return
    const turn = this.#loopTurns.get(runId)
    this.#loopTurns.delete(runId)
    if (turn && (event.reason === 'error' || event.reason === 'aborted') && this.#turnsInLoop.has(runId))
      void turn.failed(new Error(`the tool loop ended: ${event.reason}`)).finally(endTurn)
    else {
      this.#turnsInLoop.delete(runId)
      endTurn()
    }
  }

  /** Waits for the session's turn (its branch's, for a sub-agent on a branch). */
  #start(request: ChatClientRequest): Promise<HeldTurn> {
    const { sessionId, branch } = this.#sessionOf(request.context)
    return this.#turns.start(request, branch === undefined ? sessionId : `${sessionId}/${branch}`)
  }

  #sessionOf(context: Readonly<Record<string, unknown>>): { sessionId: string; branch: string | undefined } {
    const text = (key: string) => (typeof context[key] === 'string' && context[key] !== '' ? context[key] : undefined)
    return {
      sessionId:
        text(SessionMemoryAdvisor.SESSION_ID_CONTEXT_KEY) ??
        this.#options.defaultSessionId ??
        SessionMemoryAdvisor.DEFAULT_SESSION_ID,
      branch: text(SessionMemoryAdvisor.BRANCH_CONTEXT_KEY),
    }
  }

  #turn(request: ChatClientRequest, advisors: TurnAdvisors): SessionTurn {
    const context = request.context
    const userId = context[SessionMemoryAdvisor.USER_ID_CONTEXT_KEY]
    const settings: TurnSettings = {
      name: this.name,
      service: this.sessionService,
      ...this.#sessionOf(context),
      userId: typeof userId === 'string' && userId !== '' ? userId : this.#options.defaultUserId,
      trigger: this.#options.compactionTrigger,
      strategy: this.#options.compactionStrategy,
      filter: this.#options.eventFilter ?? EventFilter.active(),
      estimator: this.#estimator,
      turnsInLoop: this.#turnsInLoop,
    }
    const withRun = RUN_ID_KEY in context ? request : { ...request, context: { ...context, [RUN_ID_KEY]: newId() } }
    const turn = new SessionTurn(settings, withRun, advisors, modelOf(advisors))
    if (typeof context[ROUND_KEY] === 'number') this.#loopTurns.set(String(withRun.context[RUN_ID_KEY]), turn)
    return turn
  }
}

type TurnAdvisors = CallAdvisorChain['callAdvisors'] | StreamAdvisorChain['streamAdvisors']

export class SessionMemoryAdvisorBuilder {
  readonly #options: SessionMemoryAdvisorOptions = {}

  constructor(private readonly sessionService: SessionService) {}

  defaultSessionId(id: string): this {
    return setOption(this, this.#options, 'defaultSessionId', id)
  }

  defaultUserId(id: string): this {
    return setOption(this, this.#options, 'defaultUserId', id)
  }

  compactionTrigger(trigger: CompactionTrigger): this {
    return setOption(this, this.#options, 'compactionTrigger', trigger)
  }

  compactionStrategy(strategy: CompactionStrategy): this {
    return setOption(this, this.#options, 'compactionStrategy', strategy)
  }

  eventFilter(filter: EventFilter): this {
    return setOption(this, this.#options, 'eventFilter', filter)
  }

  tokenCountEstimator(estimator: TokenCountEstimator): this {
    return setOption(this, this.#options, 'tokenCountEstimator', estimator)
  }

  order(order: number): this {
    return setOption(this, this.#options, 'order', order)
  }

  /** What a turn does when another turn holds its session (default 'wait'). */
  whenBusy(policy: WhenBusy): this {
    return setOption(this, this.#options, 'whenBusy', whenBusyPolicy(policy))
  }

  build(): SessionMemoryAdvisor {
    return new SessionMemoryAdvisor(this.sessionService, { ...this.#options })
  }
}

/** Outside the tool loop, the request with a list for the loop to fill with the turn's tool rounds. */
function collectingRounds(request: ChatClientRequest, rounds: Message[]): ChatClientRequest {
  if (typeof request.context[ROUND_KEY] === 'number') return request
  return { ...request, context: { ...request.context, [TURN_ROUNDS_KEY]: rounds } }
}

/**
 * Passes a stream through and stores its answer (the aggregate of its last round) when it ends. A
 * prompt refused as too long before any chunk is compacted to fit and streamed once more.
 */
class SessionStream implements StreamLayer<ChatClientResponse> {
  readonly passesOn = 'unchanged'
  readonly #answer = new LastRoundAnswer()
  #rounds: Message[] = []
  #settled = false
  /** Set once the session's turn is held. */
  #turn: SessionTurn | undefined
  #endTurn: (() => void) | undefined

  constructor(
    private readonly startTurn: () => Promise<HeldTurn>,
    private readonly newTurn: (request: ChatClientRequest) => SessionTurn,
    private readonly chain: StreamAdvisorChain,
  ) {}

  async open(): Promise<AsyncIterable<ChatClientResponse>> {
    const held = await this.startTurn()
    this.#endTurn = held.end
    // Stopped while waiting for the session's turn: it is given back at once.
    if (this.#settled) {
      this.#finish()
      throw new DOMException('The turn was stopped', 'AbortError')
    }
    this.#turn = this.newTurn(held.request)
    return this.chain.nextStream(collectingRounds(await this.#turn.before(), this.#rounds))
  }

  chunk(chunk: ChatClientResponse): ChatClientResponse {
    this.#answer.add(chunk)
    return chunk
  }

  async end(): Promise<void> {
    this.#settled = true
    try {
      await this.#turn!.after(this.#answer.result(), this.#rounds)
    } finally {
      this.#finish()
    }
  }

  async fail(error: unknown): Promise<StageNext<ChatClientResponse, ChatClientResponse>> {
    const turn = this.#turn
    let again: ChatClientRequest | undefined
    try {
      // No turn: the session's turn was refused, or the wait for it aborted.
      again = turn && !this.#settled && this.#answer.empty ? await turn.retry(error) : undefined
    } catch (refused) {
      error = refused
    }
    if (again) {
      this.#rounds = []
      return { source: this.chain.nextStream(collectingRounds(again, this.#rounds)) }
    }
    this.#settled = true
    await turn?.failed(error)
    this.#finish()
    throw error
  }

  stop(): void {
    if (this.#settled) return
    this.#settled = true
    // Still waiting for the session's turn: `open` gives it back.
    void this.#turn?.failed(new DOMException('The turn was stopped', 'AbortError')).finally(() => this.#finish())
  }

  #finish(): void {
    const endTurn = this.#endTurn
    this.#endTurn = undefined
    endTurn?.()
  }
}
