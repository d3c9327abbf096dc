import type { ChatClient } from '../client'
import type { DeepPartial, SchemaLike } from '../../schema'

/** How a submitted object ended: the validated value, or the error that ended it (then `object` is undefined). */
export interface StreamedObjectFinish<T = unknown> {
  /** The validated value; undefined when the submit failed. */
  object: T | undefined
  /** Why it failed: the model's error, or an OutputParseError. */
  error: Error | undefined
}

/** How a streamed object is asked for; `T` is the schema's value type. */
export interface StreamedObjectOptions<Schema extends SchemaLike = SchemaLike, T = unknown> {
  /** The object's structure: sent to the model (natively or as format instructions) and checked at the end. */
  schema: Schema
  /** An invalid answer is retried with the errors (StructuredOutputValidationAdvisor); default false. */
  validate?: boolean
  /** The prompt sent for a submitted text (default: the text itself). */
  prompt?: (input: string) => string
  /** Called once when a submitted object ends by itself, valid or not; not for a stop, a clear or a newer submit. */
  onFinish?: (finish: StreamedObjectFinish<T>) => void
  /** Called when a submitted object fails (also in `error`): the model's error, or an OutputParseError. */
  onError?: (error: Error) => void
}

/** What a streamed object shows; a new object whenever something in it changed, the same one otherwise. */
export interface StreamedObjectState<T = unknown> {
  /**
   * The object of the latest submit: a deep-partial value while it streams (complete values only,
   * starting over with each model call), then the validated value. Undefined before it starts.
   * A failure keeps the last partial value.
   */
  object: DeepPartial<T> | undefined
  /** Why the latest submit failed: the model's error, or an OutputParseError when the answer is not the schema's. */
  error: Error | undefined
  /** True from a submit until its object ends (also by `stop`, `clear` or unmounting). */
  isLoading: boolean
}

/** What a user can do to a streamed object; each is bound, so it can be passed around alone. */
export interface StreamedObjectCommands {
  /**
   * Asks the model for the object (`prompt(text)` is sent) and streams it into `object`. A submit
   * still running is stopped first. Resolves when it ends, however it ends; it never rejects for
   * the model's errors (they show in `error`).
   */
  submit: (input: string | { text: string }) => Promise<void>
  /** Stops the object being streamed (its model request is aborted); `object` keeps what arrived. */
  stop: () => void
  /** Stops what runs and forgets the object and the error. */
  clear: () => void
}

/**
 * One structured object streamed from a ChatClient, without a UI framework: its state
 * (`getSnapshot`), a way to hear it change (`subscribe`), and the commands. React's `useObject`
 * subscribes to one. Every function of it is bound.
 */
export interface StreamedObject<T = unknown> extends StreamedObjectCommands {
  /** The current state: the same object until something changes. */
  getSnapshot: () => StreamedObjectState<T>
  /**
   * Calls `listener` with the new state after each change. When the last subscriber leaves (the
   * component unmounted), the submit that runs stops, and commands do nothing until someone
   * subscribes again.
   */
  subscribe: (listener: (state: StreamedObjectState<T>) => void) => () => void
  /** The client and options to use from the next submit on (a framework's new render); callbacks at once. */
  setOptions: (client: ChatClient, options: StreamedObjectOptions<SchemaLike, T>) => void
}
