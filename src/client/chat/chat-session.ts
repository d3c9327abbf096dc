import type { Message } from '../../core'
import { EventFilter, isReal, sessionEvent, type SessionEvent, type SessionService } from '../../session'
import type { ChatMessageView } from './chat-view'

// A chat on a session shows the whole log (what compaction covered too) and marks where the
// model's view begins: the first bubble of the session's active view gets `viewStart: true`.

/** Where the active view begins, counted in what the chat shows: after `users` questions, on a question or an answer. */
export interface ViewStart {
  users: number
  role: 'user' | 'assistant'
}

/** A session as a chat shows it: its conversation's messages, and where the model's view begins (none when it sees all). */
export interface SessionConversation {
  messages: Message[]
  viewStart: ViewStart | undefined
}

/** What a chat shows of an event: what the user, the model and the tools said in the root conversation. */
const shown = (event: SessionEvent) => isReal(event) && event.branch === undefined

/** Reads the session's whole log and its active view; a session not created yet is an empty conversation. */
export async function readSession(service: SessionService, sessionId: string): Promise<SessionConversation> {
  if (!(await service.findById(sessionId))) return { messages: [], viewStart: undefined }
  const [all, active] = await Promise.all([
    service.getEvents(sessionId, EventFilter.all()),
    service.getEvents(sessionId, EventFilter.active()),
  ])
  const events = all.filter(shown)
  const first = active.find(shown)?.id
  const at = first === undefined ? -1 : events.findIndex((event) => event.id === first)
  const viewStart: ViewStart | undefined =
    at <= 0
      ? undefined
      : {
          users: events.slice(0, at).filter((event) => event.message.role === 'user').length,
          role: events[at]!.message.role === 'user' ? 'user' : 'assistant',
        }
  return { messages: events.map((event) => event.message), viewStart }
}

/**
 * The bubbles with `viewStart` on the one where the model's view begins and on no other (a
 * bubble that does not change keeps its identity).
 */
export function markViewStart(bubbles: ChatMessageView[], viewStart: ViewStart | undefined): ChatMessageView[] {
  const target = viewStart && bubbleAt(bubbles, viewStart)
  let changed = false
  const marked = bubbles.map((bubble, index) => {
    if ((index === target) === (bubble.viewStart === true)) return bubble
    changed = true
    if (index === target) return { ...bubble, viewStart: true }
    const { viewStart: _unmarked, ...rest } = bubble
    return rest
  })
  return changed ? marked : bubbles
}

/** The index of the bubble a view start names, or undefined when the chat shows no such bubble. */
function bubbleAt(bubbles: readonly ChatMessageView[], { users, role }: ViewStart): number | undefined {
  let seen = 0
  for (const [index, bubble] of bubbles.entries()) {
    if (bubble.role === 'user') {
      if (role === 'user' && seen === users) return index
      seen++
    } else if (role === 'assistant' && seen === users) return index
  }
  return undefined
}

/**
 * Replaces the session's conversation with `messages`: the log is never rewritten, so the session
 * is made again (same id, user and metadata) with these messages as its log.
 */
export async function replaceSession(service: SessionService, sessionId: string, messages: Message[]): Promise<void> {
  const session = await service.findById(sessionId)
  await service.delete(sessionId)
  await service.create({
    id: sessionId,
    ...(session?.userId === undefined ? {} : { userId: session.userId }),
    ...(session ? { metadata: session.metadata } : {}),
  })
  if (messages.length === 0) return
  const events = messages.map((message) => sessionEvent(sessionId, message))
  if (!(await service.appendEvents(sessionId, events, 0)))
    throw new Error(`Session '${sessionId}' changed while its conversation was replaced; set the messages again`)
}
