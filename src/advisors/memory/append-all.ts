import type { SessionEvent, SessionService } from '../../session'

/** Writers in other tabs may append between our read of the version and our append: try again this often. */
const ATTEMPTS = 5

/**
 * Appends `events` in one atomic step (a turn's tool call never lands without its result, even if
 * the tab closes): a version-checked append, read again when another writer came first.
 */
export async function appendAll(
  service: SessionService,
  sessionId: string,
  events: readonly SessionEvent[],
): Promise<void> {
  if (events.length === 0) return
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (await service.appendEvents(sessionId, events, await service.getEventVersion(sessionId))) return
  }
  throw new Error(
    `Session '${sessionId}' could not store the answer: other writers appended ${ATTEMPTS} times in a row while it tried; send again`,
  )
}
