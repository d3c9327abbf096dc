/** The error every aborted operation rejects with: a DOMException named `AbortError`. */
export function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason
  if (reason instanceof Error && reason.name === 'AbortError') return reason
  const error = new DOMException('The operation was aborted.', 'AbortError')
  if (reason !== undefined) Object.defineProperty(error, 'cause', { value: reason })
  return error
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal)
}

export function isAbortError(error: unknown): boolean {
  try {
    return error instanceof Error && error.name === 'AbortError'
  } catch {
    // A user's error whose `name` getter throws is not an abort.
    return false
  }
}

/** Settles with `promise`, or rejects with an AbortError as soon as `signal` aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  if (signal.aborted) {
    promise.catch(() => {})
    return Promise.reject(abortError(signal))
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {})
      reject(abortError(signal))
    }
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/** Resolves after `ms`, or rejects with an AbortError when `signal` aborts first; never leaves a timer behind. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError(signal))
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortError(signal))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** The signals advisor-chain derived, each with the signals it follows (see `followingSignal`). */
const followed = new WeakMap<AbortSignal, readonly AbortSignal[]>()
/** Signals of advisor-chain's own controllers (a stream's stop, a tool's time limit): no caller gave them. */
const internal = new WeakSet<AbortSignal>()

/** `AbortSignal.any(signals)`, remembered as following them: a turn can tell where a request's signal came from. */
export function followingSignal(signals: readonly AbortSignal[]): AbortSignal {
  const signal = AbortSignal.any([...signals])
  followed.set(signal, signals)
  return signal
}

/** The signal of a controller of advisor-chain's own, marked as one no caller gave. */
export function internalSignal(controller: AbortController): AbortSignal {
  internal.add(controller.signal)
  return controller.signal
}

/** The signals `signal` follows directly (none when advisor-chain did not derive it). */
export function followedSignals(signal: AbortSignal): readonly AbortSignal[] {
  return followed.get(signal) ?? []
}

/** The run each of `runSignal`'s signals was made for. */
const runs = new WeakMap<AbortSignal, string>()

/**
 * A signal of advisor-chain's own for a tool of run `runId` whose turn has no signal to give: a
 * turn started with it (or a signal following it) is known to come from that run's tools.
 */
export function runSignal(runId: string | undefined): AbortSignal {
  const signal = internalSignal(new AbortController())
  if (runId !== undefined) runs.set(signal, runId)
  return signal
}

/** The runs whose tools were given `signal` or a signal it follows (see `runSignal`). */
export function signalRuns(signal: AbortSignal): string[] {
  return signalLineage(signal).flatMap((root) => runs.get(root) ?? [])
}

/** `signal` and the signals it follows, at any depth. */
export function signalLineage(signal: AbortSignal): AbortSignal[] {
  const seen = new Set<AbortSignal>()
  const todo = [signal]
  for (let next = todo.pop(); next; next = todo.pop()) {
    if (seen.has(next)) continue
    seen.add(next)
    todo.push(...(followed.get(next) ?? []))
  }
  return [...seen]
}

/** Whether a caller gave `signal`, or a signal it follows: it reaches a signal advisor-chain neither derived nor made. */
export function callerGaveSignal(signal: AbortSignal): boolean {
  return signalLineage(signal).some((root) => !followed.has(root) && !internal.has(root))
}

/** The AbortError a stream's run ends with when its reader stops reading (`return()`). */
export function readerStopped(): DOMException {
  return new DOMException('The reader stopped the stream.', 'AbortError')
}
