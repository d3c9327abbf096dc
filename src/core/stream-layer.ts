/* The contract a stream layer is written to; `streamStage` (stream-stage.ts) runs it. */

/** What follows a source that ended: the end of the stream, another source to read on, or last chunks. */
export type StageNext<In, Out> = void | { readonly source: AsyncIterable<In> } | { readonly last: readonly Out[] }

/**
 * One stream layer: its domain logic as a few steps, run by `streamStage`. Every step may throw;
 * an error of `open`, `chunk`, `end` or the source goes to `fail`, which recovers or rethrows.
 */
export interface StreamLayer<In, Out = In> {
  /** Opens the source, on the first read: an error of setting up surfaces from iteration. `reader`: who reads this stage. */
  open(reader: StreamReader): AsyncIterable<In> | Promise<AsyncIterable<In>>
  /** What the reader gets for a chunk: a chunk, undefined to skip it, or a promise of either. Default: the chunk. */
  chunk?(chunk: In): Out | undefined | Promise<Out | undefined>
  /** The source ended. Default: the stream ends. */
  end?(): StageNext<In, Out> | Promise<StageNext<In, Out>>
  /** The source or a step failed: recover with a next, or throw. Default: rethrow. */
  fail?(error: unknown): StageNext<In, Out> | Promise<StageNext<In, Out>>
  /** The reader stopped before the end (`return()`); the source is stopped right after. */
  stop?(): void
  /** A pending read rejects with an AbortError the moment this signal aborts (the caller's guard). */
  readonly signal?: AbortSignal
}

/** The reader of a stream, as a turn that holds a conversation sees it. */
export interface StreamReader {
  /**
   * Another turn waits for what this stream holds. The reader's `return()` and its signal stop the
   * stream at once; a reader that from now on leaves a chunk unasked for half a second dropped the
   * iterator, and the stream stops too. `waitedFor(false)`: no turn waits any more (the ones that
   * did were given the conversation or gave up), so a slow reader is left alone again.
   */
  waitedFor(waiting?: boolean): void
}
