import type { AnyAdvisor, ChatClientResponse, Escalation, StreamPart, Usage } from '../core'
import { StreamPartsAdvisor } from '../advisors'

/**
 * The typed events of a streamed call, pushed as they happen: text and reasoning deltas from the
 * chunks that leave the chain, tool calls, approvals, tool results and rounds from a
 * StreamPartsAdvisor inside the tool loop. Events that happen while no chunk is on its way (a tool
 * running, an approval waiting) reach a pending `next()` at once.
 */
export class PartsIterator implements AsyncIterator<StreamPart> {
  readonly #queue: StreamPart[] = []
  readonly #source: AsyncIterator<ChatClientResponse>
  #pumping = false
  #done = false
  #failure: { error: unknown } | undefined
  #wake: (() => void) | undefined
  #finishReason: string | undefined
  #model: string | undefined
  #escalation: { round: number; escalation: Escalation } | undefined
  #usage: Usage | undefined
  readonly #advisor: StreamPartsAdvisor
  /** The latest read, and how many are on their way. */
  #reading: Promise<unknown> = Promise.resolve()
  #reads = 0

  /** `open` runs the chain with the advisors given plus the one that reports parts. */
  constructor(open: (extra: AnyAdvisor[]) => AsyncIterable<ChatClientResponse>) {
    this.#advisor = new StreamPartsAdvisor(this.#push)
    this.#source = open([this.#advisor])[Symbol.asyncIterator]()
  }

  /** Reads one at a time: a read asked while another is on its way settles after it, in order. */
  next(): Promise<IteratorResult<StreamPart>> {
    const read = this.#reads > 0 ? this.#reading.then(this.#take, this.#take) : this.#take()
    this.#reads++
    this.#reading = read
    read.then(this.#answered, this.#answered)
    return read
  }

  readonly #answered = (): void => {
    this.#reads--
  }

  readonly #take = async (): Promise<IteratorResult<StreamPart>> => {
    for (;;) {
      if (this.#queue.length > 0) return { done: false, value: this.#queue.shift()! }
      if (this.#failure) {
        const { error } = this.#failure
        this.#failure = undefined
        throw error
      }
      if (this.#done) return { done: true, value: undefined }
      // Listening before the pump: reading the source may report an event at once (a tool round
      // that starts in the same tick), and its wake-up must not come before anyone listens.
      const woken = new Promise<void>((resolve) => (this.#wake = resolve))
      if (!this.#pumping) this.#pump()
      await woken
    }
  }

  async return(): Promise<IteratorResult<StreamPart>> {
    this.#done = true
    this.#queue.length = 0
    this.#notify()
    await this.#source.return?.()
    return { done: true, value: undefined }
  }

  readonly #push = (part: StreamPart): void => {
    if (this.#done) return
    this.#queue.push(part)
    this.#notify()
  }

  #notify(): void {
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }

  #pump(): void {
    this.#pumping = true
    this.#source.next().then(
      (step) => {
        this.#pumping = false
        if (step.done) this.#end()
        else this.#read(step.value)
        this.#notify()
      },
      (error: unknown) => {
        this.#pumping = false
        // After return() the stop's AbortError is no news to anyone.
        if (!this.#done) this.#failure = { error }
        this.#done = true
        this.#notify()
      },
    )
  }

  #read(chunk: ChatClientResponse): void {
    const response = chunk.chatResponse
    if (!response) return
    const generation = response.results[0]
    const round = this.#advisor.round || 1
    const output = generation?.output
    if (output?.reasoning) this.#queue.push({ type: 'reasoning-delta', round, delta: output.reasoning })
    if (output?.text) this.#queue.push({ type: 'text-delta', round, delta: output.text })
    this.#finishReason = generation?.metadata.finishReason ?? this.#finishReason
    this.#usage = response.metadata.usage ?? this.#usage
    const { model, escalation } = response.metadata
    if (typeof model === 'string') this.#model = model
    // The escalation of the last round only: an earlier round's says nothing of who wrote the answer.
    if (this.#escalation && this.#escalation.round !== round) this.#escalation = undefined
    if (isEscalation(escalation)) this.#escalation = { round, escalation }
  }

  #end(): void {
    this.#queue.push({
      type: 'finish',
      ...(this.#finishReason ? { finishReason: this.#finishReason } : {}),
      ...(this.#usage ? { usage: this.#usage } : {}),
      ...(this.#model ? { model: this.#model } : {}),
      ...(this.#escalation ? { escalation: this.#escalation.escalation } : {}),
    })
    this.#done = true
  }
}

function isEscalation(value: unknown): value is Escalation {
  const escalation = value as Partial<Escalation> | undefined
  return (
    typeof escalation?.from === 'string' && typeof escalation.to === 'string' && typeof escalation.reason === 'string'
  )
}
