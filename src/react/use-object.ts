import { useRef, useSyncExternalStore } from 'react'
import {
  createStreamedObject,
  type ChatClient,
  type StreamedObject,
  type StreamedObjectCommands,
  type StreamedObjectOptions,
  type StreamedObjectState,
} from '../client'
import type { Infer, SchemaLike } from '../schema'

/** The options of `createStreamedObject`: see `StreamedObjectOptions`. */
export type UseObjectOptions<Schema extends SchemaLike = SchemaLike> = StreamedObjectOptions<Schema, Infer<Schema>>

/** What `useObject` gives: the state (`object`, `error`, `isLoading`) and the commands. */
export interface UseObject<T = unknown> extends StreamedObjectState<T>, StreamedObjectCommands {}

/**
 * One structured object streamed from a ChatClient, as AI SDK's `experimental_useObject`:
 * `submit(text)` asks for it, `object` fills in while it streams (`partialEntity`'s values) and is
 * the validated value at the end. A new submit, `stop()`, `clear()` or unmounting aborts the one
 * that runs.
 */
export function useObject<const Schema extends SchemaLike>(
  client: ChatClient,
  options: UseObjectOptions<Schema>,
): UseObject<Infer<Schema>> {
  const made = useRef<StreamedObject<Infer<Schema>>>(undefined)
  const streamed = (made.current ??= createStreamedObject(client, options))
  // The latest client, schema and callbacks: the next submit uses them, a running one calls its callbacks.
  streamed.setOptions(client, options)
  const state = useSyncExternalStore(streamed.subscribe, streamed.getSnapshot, streamed.getSnapshot)
  return { ...state, submit: streamed.submit, stop: streamed.stop, clear: streamed.clear }
}
