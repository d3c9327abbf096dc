import { abortError } from '../core'

/**
 * Runs tasks one after another per conversation id, so two writers never interleave their reads
 * and writes of one conversation (tasks of different conversations still run side by side).
 */
export class ConversationQueue {
  readonly #tails = new Map<string, Promise<unknown>>()

  run<T>(conversationId: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(conversationId) ?? Promise.resolve()
    const result = previous.then(task, task)
    const tail = result.then(
      () => undefined,
      () => undefined,
    )
    this.#tails.set(conversationId, tail)
    // Forget an idle conversation, so the map does not grow with every id ever used.
    void tail.then(() => {
      if (this.#tails.get(conversationId) === tail) this.#tails.delete(conversationId)
    })
    return result
  }

  /**
   * Waits for the conversation's turn and hands back the function that ends it. An abort while
   * waiting rejects with an AbortError, and the turn, when it comes, is given back at once.
   */
  acquire(conversationId: string, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortError(signal))
    return new Promise((granted, refused) => {
      const onAbort = () => refused(abortError(signal))
      signal?.addEventListener('abort', onAbort, { once: true })
      void this.run(
        conversationId,
        () =>
          new Promise<void>((release) => {
            signal?.removeEventListener('abort', onAbort)
            if (signal?.aborted) return release()
            granted(release)
          }),
      )
    })
  }
}
