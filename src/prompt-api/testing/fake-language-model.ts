// A stand-in for Chrome's built-in `LanguageModel` that follows the Prompt API explainer's Web IDL
// and its algorithms as far as a page can observe them:
// github.com/webmachinelearning/prompt-api, index.bs and README.md at commit
// 2e27365ed877c3381126fcd0e10d5e0b8114c199 (2026-06-22). A web page (not an extension), so the
// deprecated inputUsage / inputQuota / measureInputUsage members are absent (unless asked for). The "model" is a
// scripted reply function; tokens are counted as one per four characters. For tests only.
import type {
  Availability,
  CreateMonitor,
  LanguageModelCreateCoreOptions,
  LanguageModelCreateOptions,
  LanguageModelMessage,
  LanguageModelMessageType,
  LanguageModelPrompt,
  LanguageModelPromptOptions,
  LanguageModelSession,
  LanguageModelStatic,
} from '../language-model'

export interface FakeBrowserModel {
  availability: Availability
  /** The reply to a prompt, given the session's conversation (the prompt's messages last) and its options. */
  reply: (conversation: readonly LanguageModelMessage[], options: LanguageModelPromptOptions) => string
  /** Tokens per session (default 4096). */
  contextWindow?: number
  /** Characters per streamed chunk (default 4). */
  chunkSize?: number
  /** Whether the page has a user gesture, which create() needs to start a download (default true). */
  userActivation?: boolean
  /**
   * `'deprecated'`: sessions have only the older names (`inputUsage`, `inputQuota`,
   * `measureInputUsage`), as in extension contexts and older Chrome (default `'current'`).
   */
  usageNames?: 'current' | 'deprecated'
}

export interface FakeLanguageModelApi extends LanguageModelStatic {
  /** Every session created or cloned, oldest first. */
  readonly sessions: FakeSession[]
  /** Every prompt's input, as given. */
  readonly prompts: LanguageModelMessage[][]
}

export interface FakeSession extends LanguageModelSession {
  readonly conversation: readonly LanguageModelMessage[]
  readonly destroyed: boolean
  readonly clonedFrom: FakeSession | undefined
}

const tokens = (text: string) => Math.ceil(text.length / 4)
const domError = (name: string, message: string) => new DOMException(message, name)

export function fakeLanguageModel(browser: FakeBrowserModel): FakeLanguageModelApi {
  const sessions: FakeSession[] = []
  const prompts: LanguageModelMessage[][] = []
  let availability = browser.availability
  const contextWindow = browser.contextWindow ?? 4096

  class FakeMonitor extends EventTarget implements CreateMonitor {
    ondownloadprogress: ((event: ProgressEvent) => void) | null = null
    progress(loaded: number) {
      const event = new ProgressEvent('downloadprogress', { loaded, total: 1, lengthComputable: true })
      this.ondownloadprogress?.(event)
      this.dispatchEvent(event)
    }
  }

  class FakeLanguageModel extends EventTarget implements FakeSession {
    #conversation: LanguageModelMessage[] = []
    #usage = 0
    #destroyed = false
    #destruction = new AbortController()
    readonly clonedFrom: FakeSession | undefined
    readonly expectedTypes: LanguageModelMessageType[]
    oncontextoverflow: ((event: Event) => void) | null = null

    private constructor(expectedTypes: LanguageModelMessageType[], from?: FakeLanguageModel) {
      super()
      this.expectedTypes = expectedTypes
      this.clonedFrom = from
      if (from) {
        this.#conversation = [...from.#conversation]
        this.#usage = from.#usage
      }
      if (browser.usageNames === 'deprecated')
        Object.defineProperties(this, {
          contextUsage: { value: undefined },
          contextWindow: { value: undefined },
          measureContextUsage: { value: undefined },
          inputUsage: { get: () => this.#usage },
          inputQuota: { value: contextWindow },
          measureInputUsage: { value: this.measureContextUsage.bind(this) },
        })
      sessions.push(this)
    }

    static async create(options: LanguageModelCreateOptions = {}): Promise<LanguageModelSession> {
      options.signal?.throwIfAborted()
      const expectedTypes = expectedTypesOf(options)
      const initial = options.initialPrompts ? canonical(options.initialPrompts, expectedTypes, false) : []
      if (availability === 'unavailable') throw domError('NotSupportedError', 'The model is not available.')
      const monitor = new FakeMonitor()
      options.monitor?.(monitor)
      if (availability !== 'available') {
        if (browser.userActivation === false)
          throw domError('NotAllowedError', 'Requires a user gesture when availability is "downloadable".')
        monitor.progress(0)
        await pause()
        options.signal?.throwIfAborted()
        monitor.progress(0.5)
        availability = 'available'
      } else monitor.progress(0)
      monitor.progress(1)
      const session = new FakeLanguageModel(expectedTypes)
      const requested = usageOf(initial)
      if (requested > contextWindow) throw quotaExceeded(requested, contextWindow)
      session.#conversation = initial
      session.#usage = requested
      return session
    }

    static async availability(options: LanguageModelCreateCoreOptions = {}): Promise<Availability> {
      expectedTypesOf(options)
      return availability
    }

    get conversation(): readonly LanguageModelMessage[] {
      return this.#conversation
    }
    get destroyed(): boolean {
      return this.#destroyed
    }
    get contextUsage(): number {
      return this.#usage
    }
    get contextWindow(): number {
      return contextWindow
    }

    async prompt(input: LanguageModelPrompt, options: LanguageModelPromptOptions = {}): Promise<string> {
      const reader = this.promptStreaming(input, options).getReader()
      let text = ''
      for (let step = await reader.read(); !step.done; step = await reader.read()) text += step.value
      return text
    }

    promptStreaming(input: LanguageModelPrompt, options: LanguageModelPromptOptions = {}): ReadableStream<string> {
      if (this.#destroyed) throw domError('InvalidStateError', 'The session was destroyed.')
      // The IDL: prompt() and promptStreaming() throw NotSupportedError for a system message.
      const messages = canonical(input, this.expectedTypes, true)
      if (messages.some((message) => message.role === 'system'))
        throw domError('NotSupportedError', 'A system message can only start a session (initialPrompts).')
      if (options.responseConstraint !== undefined && typeof options.responseConstraint !== 'object')
        throw new TypeError('responseConstraint must be a JSON Schema object or a RegExp.')
      prompts.push(messages)
      const signal = AbortSignal.any([this.#destruction.signal, ...(options.signal ? [options.signal] : [])])
      const size = browser.chunkSize ?? 4
      let reply: string | undefined
      let at = 0
      return new ReadableStream<string>({
        pull: async (controller) => {
          await pause()
          if (signal.aborted) return controller.error(signal.reason)
          if (reply === undefined) {
            const requested = usageOf(messages) + constraintUsage(options)
            if (this.#usage + requested > contextWindow)
              return controller.error(quotaExceeded(this.#usage + requested, contextWindow))
            this.#conversation.push(...messages)
            this.#usage += requested
            reply = browser.reply(this.#conversation, options)
          }
          if (at >= reply.length) {
            this.#conversation.push({ role: 'assistant', content: reply })
            this.#usage += tokens(reply)
            return controller.close()
          }
          controller.enqueue(reply.slice(at, at + size))
          at += size
        },
      })
    }

    async measureContextUsage(input: LanguageModelPrompt, options: LanguageModelPromptOptions = {}): Promise<number> {
      if (this.#destroyed) throw domError('InvalidStateError', 'The session was destroyed.')
      return usageOf(canonical(input, this.expectedTypes, true)) + constraintUsage(options)
    }

    async append(input: LanguageModelPrompt): Promise<void> {
      const messages = canonical(input, this.expectedTypes, true)
      this.#conversation.push(...messages)
      this.#usage += usageOf(messages)
    }

    async clone(options: { signal?: AbortSignal } = {}): Promise<LanguageModelSession> {
      options.signal?.throwIfAborted()
      if (this.#destroyed) throw domError('InvalidStateError', 'The session was destroyed.')
      return new FakeLanguageModel(this.expectedTypes, this)
    }

    destroy(): void {
      this.#destroyed = true
      this.#destruction.abort(domError('AbortError', 'The session was destroyed.'))
    }
  }

  return Object.assign(FakeLanguageModel as unknown as LanguageModelStatic, { sessions, prompts })
}

function expectedTypesOf(options: LanguageModelCreateCoreOptions): LanguageModelMessageType[] {
  const types = new Set<LanguageModelMessageType>(['text'])
  for (const expected of options.expectedInputs ?? []) {
    for (const language of expected.languages ?? [])
      if (!/^[a-z]{2,3}(-[A-Za-z0-9]+)*$/.test(language)) throw new RangeError(`Invalid language tag: ${language}`)
    types.add(expected.type)
  }
  return [...types]
}

/** "Validate and canonicalize a prompt": strings become text content, and the IDL's checks apply. */
function canonical(
  input: LanguageModelPrompt,
  expectedTypes: readonly LanguageModelMessageType[],
  hasAppendedInput: boolean,
): LanguageModelMessage[] {
  if (typeof input === 'string') return [{ role: 'user', content: [{ type: 'text', value: input }] }]
  if (input.length === 0) return [{ role: 'user', content: [{ type: 'text', value: '' }] }]
  return input.map((message, index) => {
    if (message.prefix && (message.role !== 'assistant' || index !== input.length - 1))
      throw domError('SyntaxError', 'Only the last message, from the assistant, may be a prefix.')
    if (message.role === 'system' && (hasAppendedInput || index > 0))
      throw new TypeError('A system message must come first in initialPrompts.')
    const content =
      typeof message.content === 'string' ? [{ type: 'text' as const, value: message.content }] : message.content
    for (const part of content) {
      if (message.role === 'assistant' && part.type !== 'text')
        throw domError('NotSupportedError', 'Assistant messages hold text only.')
      if (part.type === 'text' && typeof part.value !== 'string') throw new TypeError('Text content must be a string.')
      if (part.type !== 'text' && !expectedTypes.includes(part.type))
        throw domError('NotSupportedError', `The session was not created for ${part.type} input (expectedInputs).`)
    }
    return { role: message.role, content, ...(message.prefix ? { prefix: true } : {}) }
  })
}

function usageOf(messages: readonly LanguageModelMessage[]): number {
  let count = 0
  for (const message of messages) {
    count += 2 // the turn's control tokens
    for (const part of message.content as Array<{ value: unknown }>)
      count += typeof part.value === 'string' ? tokens(part.value) : 256
  }
  return count
}

function constraintUsage(options: LanguageModelPromptOptions): number {
  return options.responseConstraint && !options.omitResponseConstraintInput
    ? tokens(JSON.stringify(options.responseConstraint))
    : 0
}

function quotaExceeded(requested: number, quota: number): DOMException {
  return Object.assign(domError('QuotaExceededError', 'The input is too large.'), { requested, quota })
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 0))
