import {
  pushedStream,
  type AnyAdvisor,
  type ChatClientResponse,
  type Escalation,
  type StreamPart,
  type Usage,
} from '../core'
import { StreamPartsAdvisor } from '../advisors'

/**
 * The typed events of a streamed call, pushed as they happen: text and reasoning deltas from the
 * chunks that leave the chain, tool calls, approvals, tool results and rounds from a
 * StreamPartsAdvisor inside the tool loop. Events that happen while no chunk is on its way (a tool
 * running, an approval waiting) reach a pending `next()` at once. `open` runs the chain with the
 * advisors given plus the one that reports parts.
 */
export function partsStream(
  open: (extra: AnyAdvisor[]) => AsyncIterable<ChatClientResponse>,
): AsyncIterableIterator<StreamPart> {
  return pushedStream((feed) => {
    const advisor = new StreamPartsAdvisor((part) => feed.push(part))
    const source = open([advisor])[Symbol.asyncIterator]()
    const answer = new AnswerSoFar()
    return {
      async pull() {
        const step = await source.next()
        if (step.done) {
          feed.push(answer.finish())
          feed.end()
        } else for (const part of answer.add(step.value, advisor.round || 1)) feed.push(part)
      },
      stop: () => source.return?.(),
    }
  })
}

/** What the chunks said so far: their text and reasoning as parts, and what the finish part tells. */
class AnswerSoFar {
  #finishReason: string | undefined
  #model: string | undefined
  #escalation: { round: number; escalation: Escalation } | undefined
  #usage: Usage | undefined

  /** The parts of a chunk of `round`. */
  add(chunk: ChatClientResponse, round: number): StreamPart[] {
    const response = chunk.chatResponse
    if (!response) return []
    const parts: StreamPart[] = []
    const generation = response.results[0]
    const output = generation?.output
    if (output?.reasoning) parts.push({ type: 'reasoning-delta', round, delta: output.reasoning })
    if (output?.text) parts.push({ type: 'text-delta', round, delta: output.text })
    this.#finishReason = generation?.metadata.finishReason ?? this.#finishReason
    this.#usage = response.metadata.usage ?? this.#usage
    const { model, escalation } = response.metadata
    if (typeof model === 'string') this.#model = model
    // The escalation of the last round only: an earlier round's says nothing of who wrote the answer.
    if (this.#escalation && this.#escalation.round !== round) this.#escalation = undefined
    if (isEscalation(escalation)) this.#escalation = { round, escalation }
    return parts
  }

  finish(): StreamPart {
    return {
      type: 'finish',
      ...(this.#finishReason ? { finishReason: this.#finishReason } : {}),
      ...(this.#usage ? { usage: this.#usage } : {}),
      ...(this.#model ? { model: this.#model } : {}),
      ...(this.#escalation ? { escalation: this.#escalation.escalation } : {}),
    }
  }
}

function isEscalation(value: unknown): value is Escalation {
  const escalation = value as Partial<Escalation> | undefined
  return (
    typeof escalation?.from === 'string' && typeof escalation.to === 'string' && typeof escalation.reason === 'string'
  )
}
