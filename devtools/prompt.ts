import { reconstructMessages, type Message, type TraceEventOf, type RoundView, type RunView } from 'advisor-chain/trace'

export type Change = 'added' | 'removed'

// A request's full messages never change once recorded, so they are resolved once.
const resolved = new WeakMap<TraceEventOf<'model-request'>, Message[]>()

/** The exact messages the model received in a round (shared prefixes resolved), or undefined if not recorded. */
export function promptOf(run: RunView, round: RoundView | undefined): Message[] | undefined {
  const request = round?.model?.request
  if (!request) return undefined
  let messages = resolved.get(request)
  if (!messages) {
    try {
      messages = reconstructMessages(run.events, request)
    } catch {
      // The earlier request was dropped or never recorded: show what this one carries.
      return request.messages
    }
    resolved.set(request, messages)
  }
  return messages
}

/**
 * The current prompt with what changed since the previous one: messages not sent before are
 * `added`, messages sent before and gone now are `removed` (listed after the current ones).
 * `shared` (from the request's delta encoding) makes it exact and cheap; without it messages are
 * compared by content.
 */
export function diffPrompts(
  previous: readonly Message[],
  current: readonly Message[],
  shared?: number,
): { messages: Message[]; changes: Map<Message, Change> } {
  const changes = new Map<Message, Change>()
  if (shared !== undefined) {
    const removed = previous.slice(shared)
    for (const message of current.slice(shared)) changes.set(message, 'added')
    for (const message of removed) changes.set(message, 'removed')
    return { messages: [...current, ...removed], changes }
  }
  const key = (message: Message) => JSON.stringify(message)
  const before = new Map<string, number>()
  for (const message of previous) before.set(key(message), (before.get(key(message)) ?? 0) + 1)
  for (const message of current) {
    const left = before.get(key(message)) ?? 0
    if (left > 0) before.set(key(message), left - 1)
    else changes.set(message, 'added')
  }
  const removed = previous.filter((message) => {
    const left = before.get(key(message)) ?? 0
    if (left === 0) return false
    before.set(key(message), left - 1)
    return true
  })
  for (const message of removed) changes.set(message, 'removed')
  return { messages: [...current, ...removed], changes }
}
