import {
  abortError,
  LOWEST_PRECEDENCE,
  type AnyAdvisor,
  type ChatClientRequest,
  type ChatClientResponse,
  type StreamAdvisorChain,
} from '../core'
import { type DeepPartial, parseEntity, PartialJsonParser, type ResolvedSchema } from '../schema'

/** The structured answer of a stream, while it is written: see `StreamResponseSpec.partialEntity`. */
export interface PartialEntityStream<T> extends AsyncIterable<DeepPartial<T>> {
  /** The validated final value; rejects with OutputParseError, the stream's error, or an AbortError. */
  readonly entity: Promise<T>
  /** Each item of the answer's array once it is complete and valid (again from the start when an attempt restarts). */
  elements(): AsyncIterable<T extends readonly (infer E)[] ? E : never>
}

/**
 * Reads a stream's text as the answer's JSON, incrementally. Every model call (a tool round, a
 * validation retry) starts the partial value over: only the last call's text is the answer. A call
 * whose text is not JSON yields nothing more; the end decides (parse, then validate).
 */
export class EntityStream<T> implements PartialEntityStream<T> {
  readonly #open: (extra: AnyAdvisor[]) => AsyncIterable<ChatClientResponse>
  readonly #schema: ResolvedSchema<T>
  readonly #partialStrings: boolean
  #source: AsyncIterator<ChatClientResponse> | undefined
  #pulling: Promise<boolean> | undefined
  #parser!: PartialJsonParser
  /** The current call's text, its parser's number (calls counted from 1), and whether its JSON broke. */
  #text = ''
  #call = 0
  #broken = false
  #newCall = true
  #ended = false
  #stopped = false
  #failure: { error: unknown } | undefined
  #elements: unknown[] = []
  #entity: Promise<T> | undefined

  constructor(
    open: (extra: AnyAdvisor[]) => AsyncIterable<ChatClientResponse>,
    schema: ResolvedSchema<T>,
    partialStrings = false,
  ) {
    this.#open = open
    this.#schema = schema
    this.#partialStrings = partialStrings
  }

  get entity(): Promise<T> {
    return (this.#entity ??= this.#settle())
  }

  [Symbol.asyncIterator](): AsyncIterator<DeepPartial<T>> {
    let call = 0
    let version = -1
    return {
      next: async () => {
        for (;;) {
          const parser = this.#parser
          if (!this.#newCall && !this.#broken && (call !== this.#call || version !== parser.version)) {
            const value = parser.value
            call = this.#call
            version = parser.version
            if (value !== undefined) return { done: false, value: value as DeepPartial<T> }
          }
          if (this.#ended) {
            await this.entity
            return { done: true, value: undefined }
          }
          await this.#pull()
        }
      },
      return: () => this.#stop(),
    }
  }

  elements(): AsyncIterable<T extends readonly (infer E)[] ? E : never> {
    type E = T extends readonly (infer E)[] ? E : never
    return {
      [Symbol.asyncIterator]: () => {
        let call = 0
        let next = 0
        return {
          next: async (): Promise<IteratorResult<E>> => {
            for (;;) {
              if (call !== this.#call) [call, next] = [this.#call, 0]
              if (next < this.#elements.length) {
                const element = await this.#element(this.#elements[next++])
                if (element) return { done: false, value: element.value as E }
                continue
              }
              if (this.#ended) {
                await this.entity
                return { done: true, value: undefined }
              }
              await this.#pull()
            }
          },
          return: () => this.#stop(),
        }
      },
    }
  }

  // An item is valid when the schema finds nothing wrong inside it as the only item of the array.
  async #element(element: unknown): Promise<{ value: unknown } | undefined> {
    const validation = await this.#schema.validate([element])
    if (validation.ok) return { value: (validation.value as unknown[])[0] }
    return validation.issues.some((issue) => issue.path.startsWith('/0')) ? undefined : { value: element }
  }

  async #settle(): Promise<T> {
    while (await this.#pull());
    if (this.#failure) throw this.#failure.error
    if (this.#stopped) throw abortError()
    return parseEntity(this.#text, this.#schema)
  }

  async #stop(): Promise<IteratorResult<never>> {
    if (!this.#entity && !this.#ended) {
      this.#stopped = this.#ended = true
      await this.#source?.return?.()
    }
    return { done: true, value: undefined }
  }

  /** Reads one chunk (one read at a time, shared by every reader); false at the end. */
  #pull(): Promise<boolean> {
    if (this.#ended) return Promise.resolve(false)
    return (this.#pulling ??= this.#read())
  }

  async #read(): Promise<boolean> {
    this.#source ??= this.#open([this.#callStarts])[Symbol.asyncIterator]()
    try {
      const step = await this.#source.next()
      if (step.done) this.#ended = true
      else this.#take(step.value)
      return !step.done
    } catch (error) {
      this.#ended = true
      this.#failure = { error }
      throw error
    } finally {
      this.#pulling = undefined
    }
  }

  #take(chunk: ChatClientResponse): void {
    if (this.#newCall) {
      this.#newCall = false
      this.#call++
      this.#text = ''
      this.#broken = false
      this.#elements = []
      const elements = this.#elements
      this.#parser = new PartialJsonParser({
        partialStrings: this.#partialStrings,
        onElement: (element) => elements.push(element),
      })
    }
    const text = chunk.chatResponse?.results[0]?.output.text
    if (!text) return
    this.#text += text
    if (this.#broken) return
    try {
      this.#parser.push(text)
    } catch {
      // Prose before a tool call, or a bad answer: the end tells (a retry, or OutputParseError).
      this.#broken = true
    }
  }

  /** Innermost in the chain, so it sees every model call start: the answer's text starts over there. */
  readonly #callStarts = {
    name: 'Partial Entity',
    order: LOWEST_PRECEDENCE,
    adviseStream: (request: ChatClientRequest, chain: StreamAdvisorChain) => {
      this.#newCall = true
      return chain.nextStream(request)
    },
  }
}
