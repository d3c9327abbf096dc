import type { ChatResponseAggregator } from './stream'

/**
 * A streamed chunk crosses several hand-written iterators on its way to the caller (the terminal's
 * mapping, the observer's watch, the tool loop, the abort guard). Each one that turns a result of
 * the iterator below into its own result with a synchronous step offers [READ_THROUGH]: its
 * reader's step then runs right after its own, in the one promise reaction of the innermost
 * source, instead of a promise and a microtask per iterator and chunk.
 */
export const READ_THROUGH: unique symbol = Symbol('advisor-chain.readThrough')

export type OnStep<T, U> = (result: IteratorResult<T>) => U | Promise<U>
export type OnError<U> = (error: unknown) => U | Promise<U>

/** An iterator whose next result a reader may take through it in the reaction of the source below. */
export interface ReadThrough<T> {
  /** The same as `next().then(onStep, onError)`, without a promise of this iterator's own. */
  [READ_THROUGH]<U>(onStep: OnStep<T, U>, onError: OnError<U>): Promise<U>
}

/** `iterator.next().then(onStep, onError)`, through the iterator when it offers to be read through. */
export function readStep<T, U>(iterator: AsyncIterator<T>, onStep: OnStep<T, U>, onError: OnError<U>): Promise<U> {
  const through = (iterator as Partial<ReadThrough<T>>)[READ_THROUGH]
  return through ? (through.call(iterator, onStep, onError) as Promise<U>) : iterator.next().then(onStep, onError)
}

// The aggregate is offered here too: lazily loaded layers forward both, and a file of its own would cost every app a chunk.
/**
 * Offered by a stream that passes every chunk of its source on unchanged and aggregates them (the
 * observer's): a reader that reads all of its chunks and would aggregate them too (the tool loop)
 * takes this aggregator instead of folding every chunk a second time.
 */
export const AGGREGATOR: unique symbol = Symbol('advisor-chain.aggregator')

export interface Aggregating {
  /** The aggregate of the chunks this stream has passed on so far; undefined when it keeps none. */
  [AGGREGATOR](): ChatResponseAggregator | undefined
}

/** The aggregator a stream keeps of the chunks it passes on, if it offers one. */
export function aggregatorOf(iterator: object): ChatResponseAggregator | undefined {
  return (iterator as Partial<Aggregating>)[AGGREGATOR]?.()
}
