import { abortError } from './abort'

/**
 * Opens `open()` on the first `next()` (so setup errors surface from iteration, not creation) and
 * rejects the pending `next()` with an AbortError the moment `signal` aborts, even if the source
 * ignores the signal. Breaking out of the loop returns the source, which cancels it.
 */
export function guardedStream<T>(open: () => AsyncIterable<T>, signal?: AbortSignal): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      let source: AsyncIterator<T> | undefined
      let aborted: Promise<never> | undefined
      let rejectAborted: ((error: Error) => void) | undefined
      let finished = false
      const onAbort = () => {
        rejectAborted?.(abortError(signal))
        void source?.return?.().catch(() => {})
      }
      const finish = () => {
        finished = true
        signal?.removeEventListener('abort', onAbort)
      }
      return {
        next(): Promise<IteratorResult<T>> {
          if (finished) return Promise.resolve({ done: true, value: undefined })
          try {
            if (signal?.aborted) throw abortError(signal)
            if (!source) {
              source = open()[Symbol.asyncIterator]()
              if (signal) {
                aborted = new Promise<never>((_, reject) => (rejectAborted = reject))
                aborted.catch(() => {})
                signal.addEventListener('abort', onAbort, { once: true })
              }
            }
          } catch (error) {
            finish()
            return Promise.reject(error)
          }
          const next = source.next()
          const result = aborted ? Promise.race([next, aborted]) : next
          return result.then(
            (step) => {
              if (step.done) finish()
              return step
            },
            (error: unknown) => {
              finish()
              throw error
            },
          )
        },
        return(value?: unknown): Promise<IteratorResult<T>> {
          finish()
          const returned = source?.return?.(value)
          return returned ?? Promise.resolve({ done: true, value: undefined })
        },
      }
    },
  }
}
