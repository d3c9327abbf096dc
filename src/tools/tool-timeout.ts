import { abortError, followingSignal, internalSignal, isAbortError, type ToolContext } from '../core'
import { ToolCallError } from './tool-errors'

/**
 * Runs a tool with a time limit: past `timeoutMs` its signal aborts and the call fails with a
 * ToolCallError. An abort of the caller's signal rejects at once and clears the timer, even when
 * the tool ignores its signal.
 */
export function withTimeout(
  name: string,
  timeoutMs: number,
  context: ToolContext,
  execute: (signal: AbortSignal) => unknown,
): Promise<unknown> {
  const outer = context.signal
  if (outer?.aborted) return Promise.reject(abortError(outer))
  const controller = new AbortController()
  const signal = outer ? followingSignal([outer, internalSignal(controller)]) : internalSignal(controller)
  return new Promise((resolve, reject) => {
    // A tool that ignores its signal must not keep the timer (and this promise) alive after an abort.
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortError(outer))
    }
    const timer = setTimeout(() => {
      outer?.removeEventListener('abort', onAbort)
      controller.abort()
      reject(new ToolCallError(`tool '${name}' did not finish within ${timeoutMs} ms`))
    }, timeoutMs)
    outer?.addEventListener('abort', onAbort, { once: true })
    Promise.resolve()
      .then(() => execute(signal))
      .then(resolve, (error: unknown) => {
        reject(isAbortError(error) && outer?.aborted ? abortError(outer) : error)
      })
      .finally(() => {
        clearTimeout(timer)
        outer?.removeEventListener('abort', onAbort)
      })
  })
}
