import type { DeepPartial, Infer, SchemaLike } from '../../schema'
import type { ChatClient } from '../client'
import type {
  StreamedObject,
  StreamedObjectFinish,
  StreamedObjectOptions,
  StreamedObjectState,
} from './streamed-object-state'

/**
 * One structured object streamed from a ChatClient, as AI SDK's `useObject` keeps it: `submit`
 * asks for it, `object` follows `partialEntity`'s values and is the validated value at the end.
 * One submit runs at a time: a new submit, `stop`, `clear` and the last subscriber leaving abort
 * the one that runs, which then writes nothing more.
 */
export function createStreamedObject<const Schema extends SchemaLike>(
  client: ChatClient,
  options: StreamedObjectOptions<Schema, Infer<Schema>>,
): StreamedObject<Infer<Schema>> {
  type T = Infer<Schema>
  let latest = { client, options }
  let state: StreamedObjectState<T> = { object: undefined, error: undefined, isLoading: false }
  const listeners = new Set<(state: StreamedObjectState<T>) => void>()
  // True once every subscriber has left: nothing may act on the object any more (until one comes back).
  let left = false
  let current: AbortController | undefined

  const set = (change: Partial<StreamedObjectState<T>>) => {
    if (!(Object.keys(change) as Array<keyof typeof change>).some((key) => change[key] !== state[key])) return
    state = { ...state, ...change }
    for (const listener of listeners) listener(state)
  }

  /** Ends the submit that runs where it is: its request is aborted and it writes nothing more. */
  const abandon = () => {
    current?.abort()
    current = undefined
  }

  const submit = async (input: string | { text: string }) => {
    if (left) return
    abandon()
    const controller = new AbortController()
    current = controller
    const { schema, validate, prompt } = latest.options
    const text = typeof input === 'string' ? input : input.text
    set({ object: undefined, error: undefined, isLoading: true })
    let finish: StreamedObjectFinish<T>
    try {
      const stream = latest.client
        .prompt(prompt ? prompt(text) : text)
        .signal(controller.signal)
        .stream()
        .partialEntity(schema, { validate: validate ?? false })
      for await (const partial of stream) {
        if (current !== controller) return
        set({ object: partial })
      }
      const object = (await stream.entity) as T
      if (current !== controller) return
      set({ object: object as DeepPartial<T>, isLoading: false })
      finish = { object, error: undefined }
    } catch (failure) {
      if (current !== controller) return
      const error = failure instanceof Error ? failure : new Error(String(failure))
      set({ error, isLoading: false })
      safely(() => latest.options.onError?.(error))
      finish = { object: undefined, error }
    }
    current = undefined
    safely(() => latest.options.onFinish?.(finish))
  }

  const stop = () => {
    abandon()
    set({ isLoading: false })
  }

  return {
    getSnapshot: () => state,
    subscribe: (listener) => {
      listeners.add(listener)
      left = false
      return () => {
        if (!listeners.delete(listener) || listeners.size > 0) return
        left = true
        stop()
      }
    },
    setOptions: (client, options) => {
      latest = { client, options: options as StreamedObjectOptions<Schema, T> }
    },
    submit,
    stop,
    clear: () => {
      abandon()
      set({ object: undefined, error: undefined, isLoading: false })
    },
  }
}

/** An app's callback that throws is reported, and the object goes on. */
function safely(callback: () => void): void {
  try {
    callback()
  } catch (error) {
    ;(globalThis.reportError ?? console.error)(error)
  }
}
