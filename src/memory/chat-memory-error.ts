/**
 * What went wrong with stored chat memory: `quota` (the site's storage is full; nothing of the
 * save was written), `unavailable` (no storage, or it could not be opened), `unstorable` (a message
 * that is not plain data), `failed` (the storage refused the step; nothing of it was written).
 */
export type ChatMemoryErrorCode = 'quota' | 'unavailable' | 'unstorable' | 'failed'

/** Chat memory could not read or save a conversation; the message says what happened and what to do. */
export class ChatMemoryError extends Error {
  override readonly name = 'ChatMemoryError'

  constructor(
    readonly code: ChatMemoryErrorCode,
    readonly conversationId: string | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}
