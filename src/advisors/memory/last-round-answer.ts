import { type ChatClientResponse, type ChatResponse, ChatResponseAggregator, ROUND_KEY } from '../../core'

/**
 * The answer a streamed turn stores: its last round's chunks folded. Text streamed by earlier
 * rounds of the tool loop (a preamble before tool calls) is not the answer.
 */
export class LastRoundAnswer {
  #aggregator = new ChatResponseAggregator()
  #round: unknown

  add(chunk: ChatClientResponse): void {
    const round = chunk.context[ROUND_KEY]
    if (round !== this.#round) {
      this.#round = round
      this.#aggregator = new ChatResponseAggregator()
    }
    if (chunk.chatResponse) this.#aggregator.add(chunk.chatResponse)
  }

  /** Whether no chunk of the last round came yet. */
  get empty(): boolean {
    return this.#aggregator.chunkCount === 0
  }

  /** The answer; null when no chunk came. */
  result(): ChatResponse | null {
    return this.empty ? null : this.#aggregator.result()
  }
}
