import { whyNotPlainData } from '../memory/plain-data'
import { SessionError } from './session-error'
import { problemOfEvent, type SessionEvent } from './session'

/** Throws a SessionError naming the first event that cannot be kept: malformed, of another session, or not plain data. */
export function checkEvents(sessionId: string, events: readonly SessionEvent[]): void {
  for (const [index, event] of events.entries()) {
    const where = `event ${index + 1} of ${events.length}`
    const problem =
      problemOfEvent(event) ??
      (event.sessionId === sessionId ? undefined : `it belongs to session '${event.sessionId}'`) ??
      whyNotPlainData(event)
    if (problem)
      throw new SessionError(
        'unstorable',
        sessionId,
        `Session '${sessionId}' cannot store ${where}: ${problem}. An event must be plain data (JSON values, Blobs and Files) with an id, the session's id, a timestamp and a message; nothing was written.`,
      )
  }
}
