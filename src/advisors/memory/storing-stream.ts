import {
  type ChatClientResponse,
  type ChatResponse,
  type Message,
  type ChatClientRequest,
  type StreamLayer,
} from '../../core'
import { LastRoundAnswer } from './last-round-answer'
import type { HeldTurn } from './turn-queue'

/** Passes a stream through and stores its answer once it ends: the aggregate of its last round. */
export class StoringStream implements StreamLayer<ChatClientResponse> {
  readonly #answer = new LastRoundAnswer()
  #context: Record<string, unknown> = {}
  #endTurn: (() => void) | undefined
  #stopped = false
  /** What the turn stores with its answer (outside the loop: the user message). */
  #toStore: Message[] = []

  constructor(
    private readonly startTurn: () => Promise<HeldTurn>,
    private readonly before: (
      request: ChatClientRequest,
    ) => Promise<{ source: AsyncIterable<ChatClientResponse>; toStore: Message[] }>,
    private readonly store: (
      response: ChatResponse | null,
      context: Record<string, unknown>,
      toStore: Message[],
    ) => Promise<void>,
    private readonly keepQuestion: (toStore: Message[]) => Promise<void>,
  ) {}

  async open(): Promise<AsyncIterable<ChatClientResponse>> {
    const turn = await this.startTurn()
    // Stopped while waiting for the conversation's turn: it is given back at once.
    if (this.#stopped) turn.end()
    else this.#endTurn = turn.end
    const { source, toStore } = await this.before(turn.request)
    this.#toStore = toStore
    return source
  }

  chunk(chunk: ChatClientResponse): ChatClientResponse {
    this.#context = chunk.context
    this.#answer.add(chunk)
    return chunk
  }

  async end(): Promise<void> {
    const toStore = this.#takeToStore()
    try {
      await this.store(this.#answer.result(), this.#context, toStore)
    } finally {
      this.#finish()
    }
  }

  async fail(error: unknown): Promise<never> {
    await this.keepQuestion(this.#takeToStore())
    this.#finish()
    throw error
  }

  stop(): void {
    this.#stopped = true
    // The question is kept before the turn is given back, so the next turn finds it.
    void this.keepQuestion(this.#takeToStore()).finally(() => this.#finish())
  }

  #takeToStore(): Message[] {
    const toStore = this.#toStore
    this.#toStore = []
    return toStore
  }

  #finish(): void {
    const endTurn = this.#endTurn
    this.#endTurn = undefined
    endTurn?.()
  }
}
