import { assistantMessage, toolResponseMessage, userMessage, type Message } from '../../core'
import { sessionEvent, type SessionEvent } from '../session'

/**
 * A turn's events: a question, `rounds` tool rounds (call, result) and an answer; with `branch`, a
 * sub-agent's exchange (on that branch) inside it.
 */
export function turn(sessionId: string, n: number, rounds = 0, branch?: string): SessionEvent[] {
  const messages: Message[] = [userMessage(`question ${n}`)]
  const events = (list: Message[]) => list.map((message) => sessionEvent(sessionId, message))
  for (let round = 0; round < rounds; round++) {
    const id = `call-${n}-${round}`
    messages.push(assistantMessage('', [{ id, name: 'lookup', arguments: `{"q":${n}}` }]))
    messages.push(toolResponseMessage([{ id, name: 'lookup', responseData: `result ${n}.${round} `.repeat(8) }]))
  }
  messages.push(assistantMessage(`answer ${n}`))
  if (branch === undefined) return events(messages)
  const sub = [userMessage(`task ${n}`), assistantMessage(`done ${n}`)].map((message) =>
    sessionEvent(sessionId, message, { branch }),
  )
  return [...events(messages.slice(0, 1)), ...sub, ...events(messages.slice(1))]
}

/** A reproducible source of numbers in [0, 1). */
export function seeded(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
}

/** Each tool call of the messages has its result among them, and each result its call. */
export function toolPairsWhole(messages: readonly Message[]): boolean {
  const calls = new Set(messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls.map((c) => c.id) : [])))
  const results = new Set(messages.flatMap((m) => (m.role === 'tool' ? m.responses.map((r) => r.id) : [])))
  return calls.size === results.size && [...calls].every((id) => results.has(id))
}
