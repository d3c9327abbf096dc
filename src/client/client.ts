import {
  type AnyAdvisor,
  type ChatClientRequest,
  type ChatClientResponse,
  raceAbort,
  throwIfAborted,
  AdvisorChain,
  guardedStream,
  systemMessage,
  userMessage,
  type AttachmentPart,
  type Message,
  type ChatModel,
  type ChatOptions,
  type ChatResponse,
  OUTPUT_SCHEMA_KEY,
  READER_KEY,
  type StreamReader,
  modelStreamAdvisor,
  type StreamPart,
  type ToolCallback,
} from '../core'
import { StructuredOutputValidationAdvisor, type ToolCallingAdvisorBuilder } from '../advisors'
import { withToolAdvisor } from './client-advisors'
import { callChain, chainMemo, outputShaper, type ChainMemo } from './call-chain'
import { type Infer, parseEntity, resolveSchema, type ResolvedSchema, type SchemaLike } from '../schema'
import { partsStream } from './parts-iterator'
import { entityStream, type PartialEntityStream } from './partial-entity'

/**
 * Everything a call is made of; the defaults of a client and one prompt's additions merged. A
 * change replaces a field (never edits the array or object in it), so a copy of the spec is one
 * object: a client's prompts share its defaults, and a call keeps the spec it was asked with.
 */
interface CallSpec {
  model: ChatModel
  system?: string | undefined
  messages: readonly Message[]
  user?: string | undefined
  /** Images and files sent with the user text. */
  attachments: readonly AttachmentPart[]
  tools: readonly ToolCallback[]
  toolContext: Readonly<Record<string, unknown>>
  options: ChatOptions
  advisors: readonly AnyAdvisor[]
  params: Readonly<Record<string, unknown>>
  signal?: AbortSignal | undefined
  toolCallingAdvisor?: ToolCallingAdvisorBuilder | undefined
  /** Shared by a client's requests. */
  chains: ChainMemo
}

/** @internal What a client was built with, as agentTool and forkRun read it. */
export interface ClientDefaults {
  readonly advisors: readonly AnyAdvisor[]
  readonly tools: readonly ToolCallback[]
  readonly params: Record<string, unknown>
}

export class ChatClient {
  readonly #defaults: Readonly<CallSpec>

  private constructor(defaults: CallSpec) {
    this.#defaults = defaults
  }

  static create(model: ChatModel): ChatClient {
    return ChatClient.builder(model).build()
  }

  static builder(model: ChatModel): ChatClientBuilder {
    return new ChatClientBuilder(model, (defaults) => new ChatClient(defaults))
  }

  /** Starts one request; `userText` is the same as `.user(userText)`. */
  /** @internal For agentTool and forkRun: the client's default advisors, tools and advisor params. */
  static defaultsOf(client: ChatClient): ClientDefaults {
    return client.#defaults
  }

  prompt(userText?: string): ChatClientRequestSpec {
    const spec = new ChatClientRequestSpec({ ...this.#defaults })
    return userText === undefined ? spec : spec.user(userText)
  }
}

export class ChatClientBuilder {
  readonly #spec: CallSpec
  readonly #build: (defaults: CallSpec) => ChatClient

  /** @internal use `ChatClient.builder(model)` */
  constructor(model: ChatModel, build: (defaults: CallSpec) => ChatClient) {
    if (!model || typeof model.call !== 'function' || typeof model.stream !== 'function') {
      throw new TypeError('ChatClient.builder(model) needs a ChatModel with call() and stream()')
    }
    this.#spec = emptySpec(model)
    this.#build = build
  }

  defaultSystem(text: string): this {
    this.#spec.system = text
    return this
  }

  defaultAdvisors(...advisors: AnyAdvisor[]): this {
    this.#spec.advisors = [...this.#spec.advisors, ...advisors]
    return this
  }

  defaultTools(...tools: ToolCallback[]): this {
    this.#spec.tools = [...this.#spec.tools, ...tools]
    return this
  }

  defaultOptions(options: ChatOptions): this {
    this.#spec.options = { ...this.#spec.options, ...options }
    return this
  }

  defaultAdvisorParams(params: Record<string, unknown>): this {
    this.#spec.params = { ...this.#spec.params, ...params }
    return this
  }

  /** The builder of the ToolCallingAdvisor registered on every call (e.g. a subclass's builder). */
  toolCallingAdvisor(builder: ToolCallingAdvisorBuilder): this {
    this.#spec.toolCallingAdvisor = builder
    return this
  }

  build(): ChatClient {
    return this.#build({ ...this.#spec, chains: chainMemo() })
  }
}

/** One request being described; `.call()` or `.stream()` runs it. */
export class ChatClientRequestSpec {
  readonly #spec: CallSpec

  /** @internal use `client.prompt()` */
  constructor(spec: CallSpec) {
    this.#spec = spec
  }

  system(text: string): this {
    this.#spec.system = text
    return this
  }

  /** The user message; attachments (images, files) go with it as parts, after the text. */
  user(text: string, attachments: readonly AttachmentPart[] = []): this {
    this.#spec.user = text
    this.#spec.attachments = [...attachments]
    return this
  }

  messages(...messages: Message[]): this {
    this.#spec.messages = [...this.#spec.messages, ...messages]
    return this
  }

  tools(...tools: ToolCallback[]): this {
    this.#spec.tools = [...this.#spec.tools, ...tools]
    return this
  }

  toolContext(values: Record<string, unknown>): this {
    this.#spec.toolContext = { ...this.#spec.toolContext, ...values }
    return this
  }

  options(options: ChatOptions): this {
    this.#spec.options = { ...this.#spec.options, ...options }
    return this
  }

  advisors(...advisors: AnyAdvisor[]): this {
    this.#spec.advisors = [...this.#spec.advisors, ...advisors]
    return this
  }

  advisorParams(params: Record<string, unknown>): this {
    this.#spec.params = { ...this.#spec.params, ...params }
    return this
  }

  signal(signal: AbortSignal): this {
    this.#spec.signal = signal
    return this
  }

  /** Never throws: the chain runs when a result method is called. */
  call(): CallResponseSpec {
    return new CallResponseSpec({ ...this.#spec })
  }

  /** Never throws: the chain runs when the returned iterable is read. */
  stream(): StreamResponseSpec {
    return new StreamResponseSpec({ ...this.#spec })
  }
}

export class CallResponseSpec {
  readonly #spec: CallSpec

  /** @internal */
  constructor(spec: CallSpec) {
    this.#spec = spec
  }

  async chatClientResponse(): Promise<ChatClientResponse> {
    const request = toRequest(this.#spec)
    throwIfAborted(request.signal)
    const chain = callChain(this.#spec.chains, advisorsOf(this.#spec), this.#spec.model)
    return raceAbort(chain.nextCall(request), request.signal)
  }

  async chatResponse(): Promise<ChatResponse | null> {
    return (await this.chatClientResponse()).chatResponse
  }

  /** The text of the first generation, or null when the response has none. */
  async content(): Promise<string | null> {
    return (await this.chatResponse())?.results[0]?.output.text ?? null
  }

  /**
   * The answer as a typed value. The model is constrained to the schema (natively when it can,
   * else by format instructions); with `validate: true` invalid answers are retried with the
   * errors (StructuredOutputValidationAdvisor). Throws OutputParseError when the answer is not the
   * structure asked for.
   */
  async entity<const S extends SchemaLike>(schema: S, options: EntityOptions = {}): Promise<Infer<S>> {
    const resolved = resolveSchema<Infer<S>>(schema, 'output')
    const text = await new CallResponseSpec(entitySpec(this.#spec, resolved, schema, options)).content()
    return parseEntity(text ?? '', resolved)
  }
}

export interface EntityOptions {
  /** Validate the answer against the schema and retry with the errors (default false). */
  validate?: boolean
  /** With `validate`, extra model calls after the first (default 3). */
  maxRepeatAttempts?: number
  /** `partialEntity` only: show strings while they are written, not only once complete (default false). */
  partialStrings?: boolean
}

export class StreamResponseSpec {
  readonly #spec: CallSpec

  /** @internal */
  constructor(spec: CallSpec) {
    this.#spec = spec
  }

  chatClientResponse(): AsyncIterable<ChatClientResponse> {
    return this.#read((chunk) => chunk)
  }

  chatResponse(): AsyncIterable<ChatResponse> {
    return this.#read((chunk) => chunk.chatResponse ?? undefined)
  }

  /** The text deltas of the first generation, in order; empty deltas are skipped. */
  content(): AsyncIterable<string> {
    return this.#read((chunk) => chunk.chatResponse?.results[0]?.output.text || undefined)
  }

  /**
   * What happens, as typed events in order: rounds, reasoning and text deltas, each tool call as it
   * starts and its arguments as they stream, approvals, tool results, and a last `finish`. A UI
   * draws a tool card the moment the model starts the call.
   */
  parts(): AsyncIterable<StreamPart> {
    return { [Symbol.asyncIterator]: () => partsStream((extra) => this.#read((chunk) => chunk, extra)) }
  }

  /**
   * The answer as a typed value while it streams: an async iterable of partial values (complete
   * leaves only), `elements()` for the items of an array answer, and `entity`, the validated final
   * value. Each model call starts the partial value over (tool rounds, validation retries).
   */
  partialEntity<const S extends SchemaLike>(schema: S, options: EntityOptions = {}): PartialEntityStream<Infer<S>> {
    const resolved = resolveSchema<Infer<S>>(schema, 'output')
    const stream = new StreamResponseSpec(entitySpec(this.#spec, resolved, schema, options))
    return entityStream((extra) => stream.#read((chunk) => chunk, extra), resolved, options.partialStrings)
  }

  #read<T>(pick: (chunk: ChatClientResponse) => T | undefined, extra: AnyAdvisor[] = []): AsyncIterable<T> {
    const spec = extra.length > 0 ? { ...this.#spec, advisors: [...this.#spec.advisors, ...extra] } : this.#spec
    const open = (signal: AbortSignal, reader: StreamReader) => {
      const chain = AdvisorChain.of([...advisorsOf(spec), modelStreamAdvisor(spec.model, outputShaper)])
      const request = toRequest(spec)
      return chain.nextStream({ ...request, context: { ...request.context, [READER_KEY]: reader }, signal })
    }
    return guardedStream(open, spec.signal, pick)
  }
}

/** The spec of a structured answer: the schema for the model, and its validation when asked for. */
function entitySpec(spec: CallSpec, resolved: ResolvedSchema, schema: SchemaLike, options: EntityOptions): CallSpec {
  const copy = { ...spec }
  askForEntity(new ChatClientRequestSpec(copy), resolved, schema, options)
  return copy
}

/** Asks a request for `schema`'s structure, as `entity` and `partialEntity` do (the chat object's `output` too). */
export function askForEntity(
  spec: ChatClientRequestSpec,
  resolved: ResolvedSchema,
  schema: SchemaLike,
  { validate, maxRepeatAttempts }: EntityOptions,
): ChatClientRequestSpec {
  spec.advisorParams({ [OUTPUT_SCHEMA_KEY]: resolved.jsonSchema })
  if (!validate) return spec
  return spec.advisors(
    new StructuredOutputValidationAdvisor({
      outputSchema: schema,
      ...(maxRepeatAttempts !== undefined && { maxRepeatAttempts }),
    }),
  )
}

function emptySpec(model: ChatModel): CallSpec {
  return {
    model,
    messages: [],
    // Present from the start: a prompt's copy of the spec that gained it cost 2% of a warm tool loop (bench-peers, Node).
    user: undefined,
    attachments: [],
    tools: [],
    toolContext: {},
    options: {},
    advisors: [],
    params: {},
    chains: chainMemo(),
  }
}

function advisorsOf(spec: CallSpec): AnyAdvisor[] {
  return withToolAdvisor(spec.advisors, spec.params, spec.toolCallingAdvisor)
}

/** Messages in the order system → explicit messages → user text; the context starts as a copy of the params. */
function toRequest(spec: CallSpec): ChatClientRequest {
  const messages: Message[] = []
  if (spec.system !== undefined) messages.push(systemMessage(spec.system))
  messages.push(...spec.messages)
  if (spec.user !== undefined) {
    const text = spec.user
    const parts =
      spec.attachments.length > 0 ? [...(text ? [{ type: 'text' as const, text }] : []), ...spec.attachments] : []
    messages.push(parts.length > 0 ? { role: 'user', text, parts } : userMessage(text))
  }

  const options: ChatOptions = { ...spec.options }
  const tools = [...spec.tools, ...(spec.options.tools ?? [])]
  if (tools.length > 0) options.tools = tools
  const toolContext = { ...spec.options.toolContext, ...spec.toolContext }
  if (Object.keys(toolContext).length > 0) options.toolContext = toolContext

  const request: ChatClientRequest = {
    prompt: { messages, options },
    context: { ...spec.params },
  }
  if (spec.signal) request.signal = spec.signal
  return request
}
