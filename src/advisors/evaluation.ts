import {
  setOption,
  HIGHEST_PRECEDENCE,
  type CallAdvisor,
  type CallAdvisorChain,
  type ChatClientRequest,
  type ChatClientResponse,
  type StreamAdvisor,
  type StreamAdvisorChain,
  emitChainEvent,
  assistantMessage,
  userMessage,
  type Message,
  type ChatModel,
  streamStage,
  ChatResponseAggregator,
  finiteNumber,
  wholeNumber,
} from '../core'
import { extractJson, parseJson } from '../schema'

/** A judge's verdict: a score from 0 to 1 and what to improve. */
export interface Judgement {
  score: number
  feedback?: string
}

export interface JudgeInput {
  /** The last user message of the request. */
  question: string
  answer: string
  messages: readonly Message[]
  attempt: number
}

export type Judge = (input: JudgeInput, signal?: AbortSignal) => Judgement | Promise<Judgement>

export interface EvaluationOptions {
  judge: Judge
  /** Answers scoring below this are tried again (default 0.7). */
  threshold?: number
  /** Answers in all, the first included (default 3). */
  maxAttempts?: number
  /** Default `HIGHEST_PRECEDENCE + 250`: outside the tool loop, so a new attempt re-runs the whole loop. */
  order?: number
}

/**
 * Scores each final answer with a judge; below the threshold it re-runs the rest of the chain with
 * the previous answer and the judge's feedback added, up to `maxAttempts`, and returns the best.
 */
export class EvaluationAdvisor implements CallAdvisor, StreamAdvisor {
  static readonly DEFAULT_ORDER = HIGHEST_PRECEDENCE + 250

  readonly name = 'Evaluation Advisor'
  readonly order: number
  readonly #judge: Judge
  readonly #threshold: number
  readonly #maxAttempts: number

  constructor(options: EvaluationOptions) {
    if (typeof options?.judge !== 'function') throw new TypeError('EvaluationAdvisor needs a judge function')
    this.#judge = options.judge
    this.#threshold = finiteNumber('threshold', options.threshold ?? 0.7, 0, 1)
    this.#maxAttempts = wholeNumber('maxAttempts', options.maxAttempts ?? 3, 1)
    this.order = options.order ?? EvaluationAdvisor.DEFAULT_ORDER
  }

  static builder(): EvaluationAdvisorBuilder {
    return new EvaluationAdvisorBuilder()
  }

  /** A judge that asks a second model to score the answer against a rubric. */
  static modelJudge(model: ChatModel, rubric: string): Judge {
    return async ({ question, answer }, signal) => {
      const response = await model.call(
        {
          messages: [
            {
              role: 'system',
              text: 'You review answers. Score the answer from 0 (useless) to 1 (perfect) against the rubric. Reply with JSON only: {"score": number, "feedback": "what to improve, in one or two sentences"}.',
            },
            userMessage(`Rubric:\n${rubric}\n\nQuestion:\n${question}\n\nAnswer:\n${answer}`),
          ],
          options: { temperature: 0 },
        },
        signal,
      )
      return readJudgement(response.results[0]?.output.text ?? '')
    }
  }

  async adviseCall(request: ChatClientRequest, chain: CallAdvisorChain): Promise<ChatClientResponse> {
    let best: { response: ChatClientResponse; score: number } | undefined
    let next = request
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
      const response = await chain.copy(this).nextCall(next)
      const verdict = await this.#evaluate(request, response, attempt, chain.callAdvisors)
      if (!verdict) return response
      if (!best || verdict.score > best.score) best = { response, score: verdict.score }
      if (verdict.score >= this.#threshold) return response
      next = this.#retry(request, response, verdict)
    }
    return best!.response
  }

  /** Each attempt is read to its end before it is judged; the chosen one is then streamed. */
  adviseStream(request: ChatClientRequest, chain: StreamAdvisorChain): AsyncIterable<ChatClientResponse> {
    let best: { chunks: ChatClientResponse[]; score: number } | undefined
    let next = request
    let attempt = 1
    let chunks: ChatClientResponse[] = []
    let answer = new ChatResponseAggregator()
    const open = () => {
      chunks = []
      answer = new ChatResponseAggregator()
      return chain.copy(this).nextStream(next)
    }
    return streamStage({
      open,
      chunk(chunk: ChatClientResponse) {
        chunks.push(chunk)
        if (chunk.chatResponse) answer.add(chunk.chatResponse)
        return undefined
      },
      end: async () => {
        const aggregate = answer.chunkCount > 0 ? answer.result() : null
        const response: ChatClientResponse = {
          chatResponse: aggregate ?? { results: [], metadata: {} },
          context: chunks.at(-1)?.context ?? next.context,
        }
        const verdict = await this.#evaluate(request, response, attempt, chain.streamAdvisors)
        if (!best || !verdict || verdict.score > best.score) best = { chunks, score: verdict?.score ?? Infinity }
        if (!verdict || verdict.score >= this.#threshold || attempt >= this.#maxAttempts) return { last: best.chunks }
        next = this.#retry(request, response, verdict)
        attempt++
        return { source: open() }
      },
    })
  }

  async #evaluate(
    request: ChatClientRequest,
    response: ChatClientResponse,
    attempt: number,
    listeners: readonly { name: string; order: number }[],
  ): Promise<Judgement | undefined> {
    const answer = response.chatResponse?.results[0]?.output.text ?? ''
    const question = request.prompt.messages.findLast((message) => message.role === 'user')
    let verdict: Judgement
    try {
      verdict = await this.#judge(
        {
          question: question?.role === 'user' ? question.text : '',
          answer,
          messages: request.prompt.messages,
          attempt,
        },
        request.signal,
      )
    } catch (error) {
      if (request.signal?.aborted) throw error
      const message = `the judge failed, the answer is kept unevaluated: ${(error as Error).message}`
      emitChainEvent(listeners, { type: 'note', advisor: this.name, message }, response.context, this.name)
      return undefined
    }
    const score = Number.isFinite(verdict.score) ? Math.min(1, Math.max(0, verdict.score)) : 0
    const passed = score >= this.#threshold
    const event = {
      type: 'evaluation' as const,
      attempt,
      score,
      passed,
      ...(verdict.feedback ? { feedback: verdict.feedback } : {}),
    }
    emitChainEvent(listeners, event, response.context, this.name)
    return { score, ...(verdict.feedback ? { feedback: verdict.feedback } : {}) }
  }

  /** The original request, then the answer that fell short and the judge's feedback on it. */
  #retry(request: ChatClientRequest, response: ChatClientResponse, verdict: Judgement): ChatClientRequest {
    const answer = response.chatResponse?.results[0]?.output.text ?? ''
    const feedback =
      `A reviewer scored that answer ${verdict.score.toFixed(2)} of 1 (${this.#threshold} needed).` +
      (verdict.feedback ? ` Feedback: ${verdict.feedback}` : '') +
      ' Write an improved answer to the original request.'
    const messages = [...request.prompt.messages, assistantMessage(answer), userMessage(feedback)]
    return { ...request, prompt: { ...request.prompt, messages } }
  }
}

export class EvaluationAdvisorBuilder {
  readonly #options: Partial<EvaluationOptions> = {}

  judge(judge: Judge): this {
    return setOption(this, this.#options, 'judge', judge)
  }

  threshold(threshold: number): this {
    return setOption(this, this.#options, 'threshold', threshold)
  }

  maxAttempts(attempts: number): this {
    return setOption(this, this.#options, 'maxAttempts', attempts)
  }

  order(order: number): this {
    return setOption(this, this.#options, 'order', order)
  }

  build(): EvaluationAdvisor {
    return new EvaluationAdvisor({ ...this.#options } as EvaluationOptions)
  }
}

/** Reads a judge model's JSON reply; one that cannot be read is an error (the answer then stays unevaluated). */
export function readJudgement(text: string): Judgement {
  let parsed: { score?: unknown; feedback?: unknown }
  try {
    parsed = parseJson(extractJson(text)) as typeof parsed
  } catch {
    throw new Error(`the reviewer did not reply with JSON: ${text.slice(0, 200)}`)
  }
  // `null` or a bare number is JSON too, but not a judgement.
  if (parsed === null || typeof parsed !== 'object') {
    throw new Error(`the reviewer's reply has no numeric score: ${text.slice(0, 200)}`)
  }
  const score = Number(parsed.score)
  if (!Number.isFinite(score)) throw new Error(`the reviewer's reply has no numeric score: ${text.slice(0, 200)}`)
  return { score, ...(typeof parsed.feedback === 'string' ? { feedback: parsed.feedback } : {}) }
}
