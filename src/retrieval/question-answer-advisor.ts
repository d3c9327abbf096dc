import {
  BaseAdvisor,
  setOption,
  HIGHEST_PRECEDENCE,
  RETRIEVAL_EXCERPT_LENGTH,
  advisorOrder,
  attachmentsOf,
  emitChainEvent,
  finiteNumber,
  now,
  textPart,
  userMessageOf,
  wholeNumber,
  type CallAdvisorChain,
  type ChatClientRequest,
  type ChatClientResponse,
  type Message,
  type StreamAdvisorChain,
  type UserMessage,
} from '../core'
import type { ScoredDocument } from './document'
import { DEFAULT_TOP_K, type VectorStore } from './vector-store'

type MetadataFilter = (metadata: Record<string, unknown>) => boolean

/**
 * Spring AI's QuestionAnswerAdvisor: before the model is asked, the documents most similar to the
 * user's question are looked up in a vector store and put into the user message through a template.
 * By default it sits outside the tool loop (once per call, after memory loads the history and
 * before the loop), so the history keeps the question as the user asked it.
 */
export class QuestionAnswerAdvisor extends BaseAdvisor {
  /** After MemoryAdvisor (HIGHEST_PRECEDENCE + 200), before ToolCallingAdvisor (+ 300). */
  static readonly DEFAULT_ORDER = HIGHEST_PRECEDENCE + 250
  /** The context key (and response metadata key) of the documents found, as `ScoredDocument[]`. */
  static readonly RETRIEVED_DOCUMENTS = 'qa_retrieved_documents'
  /** Advisor param: a metadata filter for this request, `(metadata) => boolean`. */
  static readonly FILTER_EXPRESSION = 'qa_filter_expression'
  /** Advisor param: topK for this request. */
  static readonly TOP_K = 'qa_top_k'
  /** Advisor param: minScore for this request. */
  static readonly MIN_SCORE = 'qa_min_score'
  /** Spring AI's template: `{query}` is the user's text, `{question_answer_context}` the documents, one per line. */
  static readonly DEFAULT_PROMPT_TEMPLATE = `{query}

Context information is below, surrounded by ---------------------

---------------------
{question_answer_context}
---------------------

Given the context and provided history information and not prior knowledge,
reply to the user comment. If the answer is not in the context, inform
the user that you can't answer the question.
`

  readonly name = 'Question Answer Advisor'
  readonly order: number
  readonly #store: VectorStore
  readonly #topK: number
  readonly #minScore: number
  readonly #template: string

  constructor(
    store: VectorStore,
    options: { topK?: number; minScore?: number; promptTemplate?: string; order?: number } = {},
  ) {
    super()
    if (typeof store?.search !== 'function')
      throw new TypeError('QuestionAnswerAdvisor needs a vector store: an object with search(query)')
    this.#store = store
    this.#topK = wholeNumber('topK', options.topK ?? DEFAULT_TOP_K, 1)
    this.#minScore = finiteNumber('minScore', options.minScore ?? 0, -1, 1)
    this.#template = checkTemplate(options.promptTemplate ?? QuestionAnswerAdvisor.DEFAULT_PROMPT_TEMPLATE)
    this.order = advisorOrder(options.order ?? QuestionAnswerAdvisor.DEFAULT_ORDER)
  }

  static builder(store: VectorStore): QuestionAnswerAdvisorBuilder {
    return new QuestionAnswerAdvisorBuilder(store)
  }

  async before(request: ChatClientRequest, chain: CallAdvisorChain | StreamAdvisorChain): Promise<ChatClientRequest> {
    const messages = request.prompt.messages
    const last = messages.at(-1)
    // A turn resumed with tool calls to answer, or a round inside the loop: no new question.
    if (last?.role !== 'user') return request
    const params = request.context
    const topK = wholeNumber(
      QuestionAnswerAdvisor.TOP_K,
      numberParam(params, QuestionAnswerAdvisor.TOP_K) ?? this.#topK,
      1,
    )
    const minScore = numberParam(params, QuestionAnswerAdvisor.MIN_SCORE) ?? this.#minScore
    const filter = filterParam(params)
    const started = now()
    const documents = await this.#store.search({
      text: last.text,
      topK,
      minScore,
      ...(filter ? { filter } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    })
    const context = {
      ...request.context,
      [QuestionAnswerAdvisor.RETRIEVED_DOCUMENTS]: documents,
    }
    emitChainEvent(
      'callAdvisors' in chain ? chain.callAdvisors : chain.streamAdvisors,
      {
        type: 'retrieval',
        query: last.text,
        documents: documents.map(({ id, score, text, metadata }) => ({
          id,
          score,
          text: text.length > RETRIEVAL_EXCERPT_LENGTH ? `${text.slice(0, RETRIEVAL_EXCERPT_LENGTH)}…` : text,
          ...(metadata ? { metadata } : {}),
        })),
        topK,
        ...(Number.isFinite(minScore) ? { minScore } : {}),
        durationMs: now() - started,
      },
      context,
      this.name,
    )
    const augmented = augment(last, this.#template, documents)
    return { ...request, context, prompt: { ...request.prompt, messages: [...messages.slice(0, -1), augmented] } }
  }

  /** As Spring AI does: the documents found also ride on the answer's metadata (on a stream, its finishing chunk). */
  async after(response: ChatClientResponse): Promise<ChatClientResponse> {
    const documents = response.context[QuestionAnswerAdvisor.RETRIEVED_DOCUMENTS]
    const chatResponse = response.chatResponse
    if (documents === undefined || !chatResponse) return response
    return {
      ...response,
      chatResponse: {
        ...chatResponse,
        metadata: { ...chatResponse.metadata, [QuestionAnswerAdvisor.RETRIEVED_DOCUMENTS]: documents },
      },
    }
  }
}

type QuestionAnswerAdvisorOptions = NonNullable<ConstructorParameters<typeof QuestionAnswerAdvisor>[1]>

export class QuestionAnswerAdvisorBuilder {
  readonly #store: VectorStore
  readonly #options: QuestionAnswerAdvisorOptions = {}

  constructor(store: VectorStore) {
    this.#store = store
  }

  /** How many documents at most (default 4). */
  topK(topK: number): this {
    return setOption(this, this.#options, 'topK', topK)
  }

  /** The lowest cosine similarity kept, from -1 to 1 (default 0). */
  minScore(minScore: number): this {
    return setOption(this, this.#options, 'minScore', minScore)
  }

  /** Replaces the template; it must hold `{query}` and `{question_answer_context}`. */
  promptTemplate(template: string): this {
    return setOption(this, this.#options, 'promptTemplate', template)
  }

  order(order: number): this {
    return setOption(this, this.#options, 'order', order)
  }

  build(): QuestionAnswerAdvisor {
    return new QuestionAnswerAdvisor(this.#store, { ...this.#options })
  }
}

function checkTemplate(template: string): string {
  if (typeof template !== 'string') throw new TypeError('The prompt template must be a string')
  const missing = ['{query}', '{question_answer_context}'].filter((placeholder) => !template.includes(placeholder))
  if (missing.length > 0)
    throw new TypeError(
      `The prompt template of QuestionAnswerAdvisor must contain {query} and {question_answer_context}; missing ${missing.join(' and ')}`,
    )
  return template
}

const PLACEHOLDERS = /\{query\}|\{question_answer_context\}/g

/** The user message with its text put through the template; images and files stay as they were. */
function augment(message: UserMessage, template: string, documents: readonly ScoredDocument[]): Message {
  const context = documents.map((document) => document.text).join('\n')
  // One pass over the template: a placeholder inside the user's text or a document stays text,
  // and a function as replacement keeps a `$` in them from reading as a pattern.
  const text = template.replace(PLACEHOLDERS, (placeholder) => (placeholder === '{query}' ? message.text : context))
  const attachments = attachmentsOf(message)
  if (attachments.length === 0) return { ...message, text }
  return userMessageOf([textPart(text), ...attachments], message.metadata)
}

function numberParam(params: Readonly<Record<string, unknown>>, key: string): number | undefined {
  const value = params[key]
  if (value === undefined) return undefined
  if (typeof value !== 'number' || Number.isNaN(value))
    throw new TypeError(`Advisor param ${key} must be a number, got ${JSON.stringify(value)}`)
  return value
}

function filterParam(params: Readonly<Record<string, unknown>>): MetadataFilter | undefined {
  const value = params[QuestionAnswerAdvisor.FILTER_EXPRESSION]
  if (value === undefined) return undefined
  if (typeof value !== 'function')
    throw new TypeError(
      `Advisor param ${QuestionAnswerAdvisor.FILTER_EXPRESSION} must be a function (metadata) => boolean`,
    )
  return value as MetadataFilter
}
