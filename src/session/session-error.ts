/**
 * What went wrong with a session: `not-found` (no such session), `owner` (the request's user is not
 * the session's), `quota` (the site's storage is full; nothing of the step was written),
 * `unavailable` (no storage, or it could not be opened), `unstorable` (an event that is not plain
 * data), `failed` (the storage refused the step; nothing of it was written), `context-window` (a
 * turn that does not fit in the model's window even alone).
 */
export type SessionErrorCode =
  'not-found' | 'owner' | 'quota' | 'unavailable' | 'unstorable' | 'failed' | 'context-window'

/** A session could not be read, written or used; the message says what happened and what to do. */
export class SessionError extends Error {
  override readonly name = 'SessionError'

  constructor(
    readonly code: SessionErrorCode,
    readonly sessionId: string | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** The error of a repository asked for a session it does not hold. */
export function sessionNotFound(sessionId: string): SessionError {
  return new SessionError(
    'not-found',
    sessionId,
    `Session '${sessionId}' does not exist; create it first (sessionService.create({ id: '${sessionId}' }))`,
  )
}
