import {
  COMPACTION_EXCERPT_LENGTH,
  RUN_ID_KEY,
  ROUND_KEY,
  emitChainEvent,
  type Advisor,
  type AssistantMessage,
  type ChainEvent,
  type ChatClientRequest,
  type ChatModel,
  type ChatResponse,
  type Message,
  type Prompt,
  type Usage,
} from '../../core'
import {
  EventFilter,
  FAILED_TURN,
  SESSION_BRANCH_KEY,
  SYNTHETIC,
  SessionError,
  isContextOverflow,
  sessionEvent,
  textOfMessage,
  type CompactionResult,
  type CompactionStrategy,
  type CompactionTrigger,
  type SessionEvent,
  type SessionService,
  type TokenCountEstimator,
  type TokenCounter,
} from '../../session'
import { ChatMemory, dropOrphans } from '../../memory'
import { appendAll } from './append-all'
import { fitStrategy, ALWAYS } from './fit-to-window'

/** What every turn of one SessionMemoryAdvisor shares. */
export interface TurnSettings {
  readonly name: string
  readonly service: SessionService
  readonly sessionId: string
  readonly userId: string | undefined
  readonly branch: string | undefined
  readonly trigger: CompactionTrigger | undefined
  readonly strategy: CompactionStrategy | undefined
  readonly filter: EventFilter
  readonly estimator: TokenCountEstimator
  /** Inside the tool loop: the user event of each run's turn in progress, by run id. */
  readonly turnsInLoop: Map<string, string>
}

/**
 * One call of the advisor: outside the tool loop the whole turn, inside one round of it. It stores
 * what the request adds, gives the model the session's view, stores the answer, compacts after the
 * turn, fits the view to a window the model refused it for, and keeps a failed turn out of the view.
 */
export class SessionTurn {
  readonly #settings: TurnSettings
  readonly #request: ChatClientRequest
  readonly #advisors: readonly Advisor[]
  readonly #model: ChatModel | undefined
  readonly #runId: string
  readonly #inLoop: boolean
  /** The user event that starts this turn, once stored (or found, in a later round). */
  #turnStart: string | undefined
  #stored = new Set<string>()
  /** The estimate of the prompt sent, for the model's reported usage to correct the estimator. */
  #estimated: number | undefined
  /** The prompt's tokens as last counted (or estimated) before it was sent. */
  #promptTokens: number | undefined
  #refitted = false
  /** A later round of a turn inside the tool loop (its user message was stored in round 1). */
  #continuing = false

  constructor(settings: TurnSettings, request: ChatClientRequest, advisors: readonly Advisor[], model?: ChatModel) {
    this.#settings = settings
    this.#request = request
    this.#advisors = advisors
    this.#model = model
    this.#runId = String(request.context[RUN_ID_KEY])
    this.#inLoop = typeof request.context[ROUND_KEY] === 'number'
  }

  get sessionId(): string {
    return this.#settings.sessionId
  }

  /** Finds or creates the session, stores the new message and gives the request with the session's view. */
  async before(): Promise<ChatClientRequest> {
    const { service, sessionId, userId } = this.#settings
    const session = (await service.findById(sessionId)) ?? (await service.create({ id: sessionId, userId }))
    if (session.userId !== undefined && session.userId !== userId)
      throw new SessionError(
        'owner',
        sessionId,
        `Session '${sessionId}' belongs to another user than ${userId === undefined ? 'this anonymous request' : `'${userId}'`}; nothing was read or stored. Give each user their own session id (advisor param '${ChatMemory.CONVERSATION_ID}').`,
      )
    const continuing = this.#inLoop ? this.#settings.turnsInLoop.get(this.#runId) : undefined
    this.#turnStart = continuing
    this.#continuing = continuing !== undefined
    const last = this.#request.prompt.messages.at(-1)
    const view = continuing === undefined ? [] : await this.#view()
    if (last && (last.role === 'user' || last.role === 'tool') && !sameMessage(view.at(-1)?.message, last)) {
      const event = sessionEvent(sessionId, last, { branch: this.#settings.branch })
      await service.appendEvent(event)
      this.#stored.add(event.id)
      if (continuing === undefined && last.role === 'user') {
        this.#turnStart = event.id
        if (this.#inLoop) this.#settings.turnsInLoop.set(this.#runId, event.id)
      }
    }
    const advised = await this.#advised()
    const window = this.#model?.contextWindow
    if (window === undefined) return advised
    const tokens = await this.#count(advised.prompt)
    return tokens + this.#answerRoom(window) > window ? this.#refit(window) : advised
  }

  /**
   * The model refused the prompt as longer than its window: once per call, the view is compacted to
   * fit (the turn in progress stays whole) and the request is given again; otherwise undefined.
   */
  async retry(error: unknown): Promise<ChatClientRequest | undefined> {
    if (this.#refitted || !isContextOverflow(error)) return undefined
    return this.#refit(this.#model?.contextWindow, error)
  }

  /** Stores the answer (and, outside the loop, the turn's tool rounds before it) and compacts at the turn's end. */
  async after(response: ChatResponse | null, rounds: readonly Message[]): Promise<void> {
    if (response?.metadata['resumed'] === true) return
    const answers = response?.results.map((generation) => generation.output) ?? []
    if (answers.length === 0) return this.failed(new Error('the model gave no answer'))
    const usage = response?.metadata.usage
    if (usage && this.#estimated !== undefined)
      this.#settings.estimator.observe?.(await this.#estimatedOverRounds(this.#estimated, rounds), usage.promptTokens)
    const finish = response?.results[0]?.metadata.finishReason
    const cut = finish === 'length' || finish === 'model_context_window_exceeded'
    const byWindow = cut && (await this.#cutByWindow(finish, usage, rounds))
    const { sessionId, branch } = this.#settings
    const events = [
      ...(this.#inLoop ? [] : rounds.map((message) => sessionEvent(sessionId, message, { branch }))),
      ...answers.map((answer) =>
        sessionEvent(sessionId, answer, { branch, ...(cut ? { metadata: { finishReason: finish } } : {}) }),
      ),
    ]
    await appendAll(this.#settings.service, sessionId, events)
    if (byWindow) {
      const window = this.#model?.contextWindow
      this.#note(
        `the answer was cut by the end of the model's ${window === undefined ? 'window' : `${window}-token window`} (finishReason '${finish}'): it is stored as cut, and the view is compacted`,
        { finishReason: finish },
        'warning',
      )
    } else if (cut) {
      this.#note(
        `the answer stopped at the request's maxTokens (${this.#request.prompt.options.maxTokens} tokens, finishReason '${finish}'): it is stored as cut; raise maxTokens for longer answers`,
        { finishReason: finish },
      )
    }
    const turnEnds = !this.#inLoop || answers.every((answer: AssistantMessage) => answer.toolCalls.length === 0)
    if (!turnEnds) return
    this.#settings.turnsInLoop.delete(this.#runId)
    await this.#compact(byWindow)
  }

  /**
   * Whether a cut answer ran into the end of the model's window, rather than into the request's own
   * `maxTokens`: an answer with as many tokens as the cap stopped at the cap, and so did one whose
   * prompt left room in the window for the whole cap.
   */
  async #cutByWindow(finish: string, usage: Usage | undefined, rounds: readonly Message[]): Promise<boolean> {
    const cap = this.#request.prompt.options.maxTokens
    if (finish !== 'length' || cap === undefined) return true
    // Outside the loop the usage sums every round of the turn: it tells of the last answer only without tool rounds.
    const answer = this.#inLoop || rounds.length === 0 ? usage?.completionTokens : undefined
    if (answer !== undefined) return answer < cap
    const window = this.#model?.contextWindow
    if (window === undefined || this.#promptTokens === undefined) return false
    const prompt = this.#promptTokens + (this.#inLoop ? 0 : await this.#settings.estimator.estimate(rounds))
    return prompt + cap > window
  }

  /** The turn failed or was stopped: its question stays in the log, the turn leaves the view. */
  async failed(error: unknown): Promise<void> {
    const turn = this.#turnStart ?? this.#settings.turnsInLoop.get(this.#runId)
    this.#settings.turnsInLoop.delete(this.#runId)
    if (turn === undefined) return
    this.#turnStart = undefined
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
    const marker = sessionEvent(
      this.#settings.sessionId,
      { role: 'system', text: `Turn failed: ${text}` },
      { metadata: { [SYNTHETIC]: true, [FAILED_TURN]: { turn, error: text } } },
    )
    await this.#settings.service
      .appendEvent(marker)
      .catch((failure: unknown) =>
        console.error(`Session '${this.#settings.sessionId}' could not set a failed turn aside`, failure),
      )
  }

  /** The active view: a sub-agent sees its branch and the root events, the root agent the root events only. */
  async #view(): Promise<SessionEvent[]> {
    const { service, sessionId, filter, branch } = this.#settings
    const view = EventFilter.active().merge(filter)
    if (branch !== undefined) return service.getEvents(sessionId, view.merge(EventFilter.branch(branch)))
    return (await service.getEvents(sessionId, view)).filter((event) => event.branch === undefined)
  }

  /**
   * System messages first (the request's, then the session's), then the view, then what the request
   * adds. In a later round inside the loop the view holds the whole turn so far, this round's message included.
   */
  async #advised(): Promise<ChatClientRequest> {
    const events = await this.#view()
    const fromView = this.#continuing ? events : events.filter((event) => !this.#stored.has(event.id))
    const request = this.#request.prompt.messages
    const added = this.#continuing ? [] : request.filter((message) => message.role !== 'system')
    // A tool call stored without its result (a loop that ended on a direct answer, a record lost) is
    // left out of what is sent: no provider accepts it.
    const { messages: viewed } = dropOrphans(
      fromView.map((event) => event.message),
      false,
    )
    const all = [...request.filter((message) => message.role === 'system'), ...viewed, ...added]
    const messages = [...all.filter((m) => m.role === 'system'), ...all.filter((m) => m.role !== 'system')]
    // Tools (recall, sub-agents) read which session and branch the request is on.
    const context: Record<string, unknown> = {
      ...this.#request.context,
      [ChatMemory.CONVERSATION_ID]: this.#settings.sessionId,
    }
    if (this.#settings.branch !== undefined) context[SESSION_BRANCH_KEY] = this.#settings.branch
    return { ...this.#request, context, prompt: { ...this.#request.prompt, messages } }
  }

  /**
   * The prompt's tokens: the model's own count when it counts (which also corrects the estimator
   * the strategies use), else the estimate (corrected later by the usage the answer reports).
   */
  async #count(prompt: Prompt): Promise<number> {
    const tools = JSON.stringify((prompt.options.tools ?? []).map((tool) => tool.definition))
    const estimated =
      (await this.#settings.estimator.estimate(prompt.messages)) +
      (prompt.options.tools?.length ? Math.ceil(tools.length / 4) : 0)
    const counted = await this.#counted(prompt)
    if (counted === undefined) {
      this.#estimated = estimated
      return (this.#promptTokens = estimated)
    }
    this.#estimated = undefined
    this.#settings.estimator.observe?.(estimated, counted)
    return (this.#promptTokens = counted)
  }

  /** The model's own count, or undefined when it has none or it failed (then the estimate stands in). */
  async #counted(prompt: Prompt): Promise<number | undefined> {
    const model = this.#model
    if (!model?.countTokens) return undefined
    try {
      return await model.countTokens(prompt, this.#request.signal)
    } catch (error) {
      if (this.#request.signal?.aborted) throw error
      this.#note(
        `the model could not count the prompt's tokens, so they are estimated (${error instanceof Error ? error.message : String(error)})`,
        {},
        'warning',
      )
      return undefined
    }
  }

  /** Counts a prompt of the view's messages as the next request would send it (its system prompt and tools). */
  #viewCounter(): TokenCounter | undefined {
    if (!this.#model?.countTokens) return undefined
    const { prompt } = this.#request
    const system = prompt.messages.filter((message) => message.role === 'system')
    return async (messages) => {
      const all = [...system, ...messages]
      const ordered = [...all.filter((m) => m.role === 'system'), ...all.filter((m) => m.role !== 'system')]
      const count = await this.#counted({ ...prompt, messages: dropOrphans(ordered, false).messages })
      if (count !== undefined) return count
      return (await this.#settings.estimator.estimate(messages)) + (await this.#reserved())
    }
  }

  /**
   * The estimate of every model call of the turn, summed as the tool loop sums their usage: each
   * round's prompt is the first one plus the tool rounds before it.
   */
  async #estimatedOverRounds(first: number, rounds: readonly Message[]): Promise<number> {
    let total = first
    let added = 0
    for (const message of rounds) {
      added += await this.#settings.estimator.estimate([message])
      if (message.role === 'tool') total += first + added
    }
    return total
  }

  /** Room kept for the answer: in-browser engines count it in the window. */
  #answerRoom(window: number): number {
    return this.#request.prompt.options.maxTokens ?? Math.min(1024, Math.floor(window / 4))
  }

  /** Compacts the view to fit `window` (all before the turn in progress when unknown) and builds the request again. */
  async #refit(window: number | undefined, cause?: unknown): Promise<ChatClientRequest> {
    this.#refitted = true
    const { service, sessionId, estimator } = this.#settings
    const before = await this.#advised()
    const fixed = (await this.#count(before.prompt)) - (await estimator.estimate(before.prompt.messages))
    const budget = window === undefined ? 0 : Math.max(0, window - this.#answerRoom(window) - fixed)
    const result = await service.compact(sessionId, ALWAYS, fitStrategy(budget, this.#turnStart), {
      tokenCountEstimator: estimator,
      ...(window === undefined ? {} : { contextWindow: window }),
    })
    if (!result.unchanged) this.#noteCompaction(result, 'fit-to-window')
    const advised = await this.#advised()
    const tokens = await this.#count(advised.prompt)
    const room = window === undefined ? 0 : this.#answerRoom(window)
    if ((window !== undefined && tokens + room > window) || (window === undefined && result.unchanged))
      throw new SessionError(
        'context-window',
        sessionId,
        `This turn does not fit in the model's window even alone: about ${tokens} tokens${room ? ` plus ${room} for the answer` : ''}${window === undefined ? ', and the model refused it as too long' : ` against a window of ${window} tokens`}. Shorten the message (or its tool results), lower maxTokens, or use a model with a larger window.`,
        cause === undefined ? undefined : { cause },
      )
    return advised
  }

  async #compact(afterCut: boolean): Promise<void> {
    const { service, sessionId, trigger, strategy, estimator } = this.#settings
    const window = this.#model?.contextWindow
    const counter = this.#viewCounter()
    try {
      if (trigger && strategy) {
        const result = await service.compact(sessionId, trigger, strategy, {
          tokenCountEstimator: estimator,
          reservedTokens: await this.#reserved(),
          ...(counter === undefined ? {} : { countTokens: counter }),
          ...(window === undefined ? {} : { contextWindow: window }),
          ...(this.#request.signal ? { signal: this.#request.signal } : {}),
        })
        if (!result.unchanged) this.#noteCompaction(result, result.trigger ?? 'trigger')
      }
      // An answer cut by the window: the next turn gets room, whatever the trigger said.
      if (afterCut && window !== undefined) {
        const result = await service.compact(sessionId, ALWAYS, fitStrategy(Math.floor(window / 2), undefined), {
          tokenCountEstimator: estimator,
          contextWindow: window,
        })
        if (!result.unchanged) this.#noteCompaction(result, 'answer cut by the window')
      }
    } catch (error) {
      this.#note(
        `compaction failed; the session is as it was (${error instanceof Error ? error.message : String(error)})`,
        {},
        'warning',
      )
    }
  }

  /** What the next request adds beside the view: its system messages and tool definitions. */
  async #reserved(): Promise<number> {
    const { prompt } = this.#request
    const system = prompt.messages.filter((message) => message.role === 'system')
    const tools = prompt.options.tools?.length
      ? Math.ceil(JSON.stringify(prompt.options.tools.map((tool) => tool.definition)).length / 4)
      : 0
    return (await this.#settings.estimator.estimate(system)) + tools
  }

  #noteCompaction(result: CompactionResult, trigger: string): void {
    const event: ChainEvent = {
      type: 'compaction',
      sessionId: this.#settings.sessionId,
      trigger,
      strategy: result.strategy ?? 'strategy',
      covered: result.coveredEvents.length,
      preserved: result.preservedEvents.length,
      left: result.coveredEvents.map(({ message }) =>
        `${message.role}: ${textOfMessage(message).trim()}`.slice(0, COMPACTION_EXCERPT_LENGTH),
      ),
      summary: result.summary.map((message) => ('text' in message ? message.text : '')).join('\n'),
      tokensSaved: result.tokensEstimatedSaved,
      ...(result.tokensBefore === undefined ? {} : { tokensBefore: result.tokensBefore }),
      ...(result.tokensAfter === undefined ? {} : { tokensAfter: result.tokensAfter }),
    }
    emitChainEvent(this.#advisors, event, this.#request.context, this.#settings.name)
  }

  #note(message: string, data: Record<string, unknown>, level?: 'warning'): void {
    const event: ChainEvent = {
      type: 'note',
      advisor: this.#settings.name,
      message,
      data: { sessionId: this.#settings.sessionId, ...data },
      ...(level ? { level } : {}),
    }
    emitChainEvent(this.#advisors, event, this.#request.context, this.#settings.name)
  }
}

function sameMessage(a: Message | undefined, b: Message): boolean {
  if (a === undefined || a.role !== b.role) return false
  const { metadata: _a, ...left } = a
  const { metadata: _b, ...right } = b
  try {
    return JSON.stringify(left) === JSON.stringify(right)
  } catch {
    return false
  }
}
