import {
  abortError,
  aggregateStream,
  raceAbort,
  throwIfAborted,
  type ChatModel,
  type ChatResponse,
  type ChatResponseMetadata,
  type JsonSchema,
  type Prompt,
} from '../core'
import {
  AnswerStreamer,
  constrainedTurns,
  constrainedEnd,
  finishChunk,
  offeredTools,
  plainTurns,
  replySchema,
  textChunk,
  textOfUserMessage,
  withAttachments,
  textOnly,
  type TextTurn,
} from '../models'
import { promptApiError, promptApiFailure } from './errors'
import {
  browserLanguageModel,
  type Availability,
  type LanguageModelCreateCoreOptions,
  type LanguageModelPromptOptions,
  type LanguageModelSession,
  type LanguageModelStatic,
} from './language-model'
import { message, SessionPool } from './sessions'

/** The browser's model download, as WebLLM's loading is reported. */
export interface PromptApiProgress {
  /** From 0 to 1. */
  fraction: number
  text: string
  elapsedSeconds: number
}

export interface PromptApiChatModelOptions {
  /** Languages the conversation is in (BCP 47), e.g. `['en']`; the browser may refuse ones it lacks. */
  languages?: string[]
  /** Sampling, fixed per session (the API has no per-prompt sampling; only extension contexts honour it). */
  temperature?: number
  topK?: number
  /** Conversations kept as live sessions (default 4; each also keeps one clone for a fork). */
  maxSessions?: number
  /** The `LanguageModel` to use (default: the page's own). */
  languageModel?: LanguageModelStatic
}

export interface PromptApiCreateOptions extends PromptApiChatModelOptions {
  /** May create() start the browser's model download? It needs a user gesture then (default true). */
  allowDownload?: boolean
  onProgress?: (progress: PromptApiProgress) => void
  signal?: AbortSignal
}

/** Text and plain-text files; the session is created for text only. */
const TEXT_ONLY = textOnly('PromptApiChatModel sends text only: send text, or a plain-text file.')

/**
 * Chrome's built-in model (the Prompt API, `LanguageModel`) as a ChatModel. Tools are called through
 * JSON held to the tools' schemas by `responseConstraint`; the browser never runs them itself.
 */
export class PromptApiChatModel implements ChatModel {
  readonly provider = 'prompt-api'
  readonly supportsNativeStructuredOutput = true
  readonly model = 'built-in'
  readonly #api: LanguageModelStatic
  readonly #core: LanguageModelCreateCoreOptions
  readonly #sessions: SessionPool
  #turn = 0
  #contextWindow: number | undefined

  constructor(options: PromptApiChatModelOptions = {}) {
    const api = options.languageModel ?? browserLanguageModel()
    if (!api) throw promptApiFailure('no-api')
    this.#api = api
    this.#core = coreOptions(options)
    this.#sessions = new SessionPool(
      (initialPrompts, signal) =>
        this.#api.create({
          ...this.#core,
          // An empty list would start the session with an empty user turn.
          ...(initialPrompts.length > 0 ? { initialPrompts } : {}),
          ...(signal ? { signal } : {}),
        }),
      (options.maxSessions ?? 4) * 2,
    )
  }

  /** The window of the browser's model (`contextWindow`, formerly `inputQuota`), once a session has told it. */
  get contextWindow(): number | undefined {
    return this.#contextWindow
  }

  /** What the browser says about its model for these options, or `no-api` when it has no Prompt API. */
  static async availability(options: PromptApiChatModelOptions = {}): Promise<Availability | 'no-api'> {
    const api = options.languageModel ?? browserLanguageModel()
    return api ? api.availability(coreOptions(options)) : 'no-api'
  }

  /** Checks availability, downloads the browser's model if needed (reporting progress), and returns the model. */
  static async create(options: PromptApiCreateOptions = {}): Promise<PromptApiChatModel> {
    const api = options.languageModel ?? browserLanguageModel()
    if (!api) throw promptApiFailure('no-api')
    const { signal, onProgress } = options
    const core = coreOptions(options)
    const availability = await raceAbort(api.availability(core), signal)
    if (availability === 'unavailable') throw promptApiFailure('unavailable')
    if (availability !== 'available' && options.allowDownload === false)
      throw promptApiFailure('downloadable', `Its availability is '${availability}'`)
    const started = performance.now()
    let session: LanguageModelSession
    try {
      session = await api.create({
        ...core,
        ...(signal ? { signal } : {}),
        monitor: (monitor) =>
          monitor.addEventListener('downloadprogress', (event) => {
            const { loaded } = event as ProgressEvent
            onProgress?.({
              fraction: loaded,
              text: `Downloading the browser's model: ${Math.round(loaded * 100)}%`,
              elapsedSeconds: (performance.now() - started) / 1000,
            })
          }),
      })
    } catch (error) {
      if (signal?.aborted) throw abortError(signal)
      // Starting a download needs a user gesture: without one the browser says NotAllowedError.
      if (availability !== 'available' && error instanceof Error && error.name === 'NotAllowedError')
        throw promptApiFailure('downloadable', `Its availability is '${availability}' (${error.message})`, error)
      throw promptApiError(error)
    }
    // That session only brought the model onto the device; conversations get their own.
    session.destroy()
    return new PromptApiChatModel(options)
  }

  call(prompt: Prompt, signal?: AbortSignal): Promise<ChatResponse> {
    return aggregateStream(this.stream(prompt, signal))
  }

  /**
   * The tokens the browser's model would hold for this prompt: what the conversation's session
   * already holds (`contextUsage`) plus `measureContextUsage()` of what the prompt adds (the
   * response constraint included), against `contextWindow`. A conversation without a session yet is
   * measured on a session started with its system prompt only, then dropped.
   */
  async countTokens(prompt: Prompt, signal?: AbortSignal): Promise<number> {
    throwIfAborted(signal)
    const { turns, constraint } = await this.#request(prompt)
    const options: LanguageModelPromptOptions = {
      ...(constraint ? { responseConstraint: constraint } : {}),
      ...(signal ? { signal } : {}),
    }
    try {
      const held = this.#sessions.peek(turns)
      if (held) return await this.#measure(held.session, held.input, options)
      const system = turns[0]?.role === 'system' ? [turns[0]] : []
      let session: LanguageModelSession
      try {
        session = await this.#api.create({
          ...this.#core,
          ...(system.length > 0 ? { initialPrompts: system.map(message) } : {}),
          ...(signal ? { signal } : {}),
        })
      } catch (error) {
        // A system prompt over the window: the QuotaExceededError says how many tokens it needs.
        const { requested } = (error ?? {}) as { requested?: unknown }
        if (error instanceof Error && error.name === 'QuotaExceededError' && typeof requested === 'number')
          return requested
        throw error
      }
      try {
        return await this.#measure(session, turns.slice(system.length), options)
      } finally {
        session.destroy()
      }
    } catch (error) {
      if (signal?.aborted) throw abortError(signal)
      throw promptApiError(error)
    }
  }

  async *stream(prompt: Prompt, signal?: AbortSignal): AsyncGenerator<ChatResponse, void, undefined> {
    throwIfAborted(signal)
    const { turns, tools, constraint } = await this.#request(prompt)
    const salt = `${this.provider}:${this.#turn++}`

    let acquired: { session: LanguageModelSession; input: TextTurn[] }
    try {
      acquired = await this.#sessions.acquire(turns, signal)
    } catch (error) {
      throw signal?.aborted ? abortError(signal) : promptApiError(error)
    }
    const { session, input } = acquired
    this.#contextWindow = session.contextWindow ?? session.inputQuota ?? this.#contextWindow
    const options: LanguageModelPromptOptions = {
      ...(constraint ? { responseConstraint: constraint } : {}),
      ...(signal ? { signal } : {}),
    }
    const promptInput = input.map(message)
    let kept = false
    const answer = tools > 0 ? new AnswerStreamer() : undefined
    let raw = ''
    let reader: ReadableStreamDefaultReader<string> | undefined
    try {
      const before = usedContext(session)
      const promptTokens = await measured(session, promptInput, options)
      reader = session.promptStreaming(promptInput, options).getReader()
      for (;;) {
        const step = await raceAbort(reader.read(), signal)
        if (step.done) break
        raw += step.value
        const text = answer ? answer.push(step.value) : step.value
        if (text) yield textChunk(text)
      }
      const end = answer
        ? constrainedEnd(answer, salt, (error) => promptApiFailure('invalid-output', error.message))
        : { toolCalls: [], text: '' }
      if (end.text) yield textChunk(end.text)
      const metadata = usageMetadata(this.model, session, before, promptTokens)
      this.#sessions.release(session, [...turns, { role: 'assistant', content: raw }])
      kept = true
      yield finishChunk(end.toolCalls, 'stop', metadata)
    } catch (error) {
      if (signal?.aborted) throw abortError(signal)
      throw promptApiError(error)
    } finally {
      // A session whose turn did not finish holds a conversation nobody knows: it goes.
      if (!kept) {
        void reader?.cancel().catch(() => {})
        session.destroy()
      }
    }
  }

  /** The turns a prompt becomes (tool instructions included), the number of tools, and the response constraint. */
  async #request(prompt: Prompt): Promise<{ turns: TextTurn[]; tools: number; constraint: object | undefined }> {
    const messages = await withAttachments(prompt.messages, TEXT_ONLY, {
      provider: this.provider,
      label: 'Prompt API',
      model: this.model,
    })
    const { tools, callRequired } = offeredTools(prompt.options)
    const format = prompt.options.responseFormat
    const answerSchema: JsonSchema | undefined = format?.type === 'json_schema' ? format.schema : undefined
    const turns =
      tools.length > 0 ? constrainedTurns(messages, tools, textOfUserMessage) : plainTurns(messages, textOfUserMessage)
    const constraint =
      tools.length > 0
        ? replySchema(tools, answerSchema, { callRequired })
        : answerSchema
          ? withoutDraft(answerSchema)
          : undefined
    return { turns, tools: tools.length, constraint }
  }

  /** What `session` holds plus what `input` adds; the window is learnt on the way. */
  async #measure(
    session: LanguageModelSession,
    input: readonly TextTurn[],
    options: LanguageModelPromptOptions,
  ): Promise<number> {
    this.#contextWindow = session.contextWindow ?? session.inputQuota ?? this.#contextWindow
    const held = usedContext(session) ?? 0
    const added = await measured(session, input.map(message), options)
    if (added === undefined)
      throw promptApiFailure(
        'unsupported',
        "This browser's LanguageModel cannot measure a prompt (it has neither measureContextUsage nor measureInputUsage)",
      )
    return held + added
  }

  /** Ends every conversation's session and frees the browser's resources. */
  dispose(): void {
    this.#sessions.destroyAll()
  }
}

function coreOptions(options: PromptApiChatModelOptions): LanguageModelCreateCoreOptions {
  const languages = options.languages ? { languages: options.languages } : {}
  return {
    expectedInputs: [{ type: 'text', ...languages }],
    expectedOutputs: [{ type: 'text', ...languages }],
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.topK !== undefined ? { topK: options.topK } : {}),
  }
}

function withoutDraft(schema: JsonSchema): JsonSchema {
  const { $schema: _draft, ...rest } = schema
  return rest
}

/** Context in use: `contextUsage`, or the deprecated `inputUsage` of older browsers. */
function usedContext(session: LanguageModelSession): number | undefined {
  return session.contextUsage ?? session.inputUsage
}

async function measured(
  session: LanguageModelSession,
  input: ReturnType<typeof message>[],
  options: LanguageModelPromptOptions,
): Promise<number | undefined> {
  if (session.measureContextUsage) return session.measureContextUsage(input, options)
  if (session.measureInputUsage) return session.measureInputUsage(input, options)
  return undefined
}

/** Usage from the session's context counters: the prompt as measured, the reply as what the context grew by besides. */
function usageMetadata(
  model: string,
  session: LanguageModelSession,
  before: number | undefined,
  promptTokens: number | undefined,
): ChatResponseMetadata {
  const metadata: ChatResponseMetadata = { model }
  const after = usedContext(session)
  const window = session.contextWindow ?? session.inputQuota
  if (after !== undefined) metadata['contextUsage'] = after
  if (window !== undefined) metadata['contextWindow'] = window
  if (before === undefined || after === undefined || promptTokens === undefined) return metadata
  const completionTokens = Math.max(0, after - before - promptTokens)
  metadata.usage = { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens }
  return metadata
}
