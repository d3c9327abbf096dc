import { type ChatClientRequest, type Message, ROUND_KEY, TURN_ROUNDS_KEY } from '../../core'

/**
 * The key of the answer's metadata where memory outside the tool loop keeps the turn's rounds (the
 * assistant messages with tool calls and their results) for a chat UI to show after a reload; they
 * are never sent to the model again (`toViews` in `advisor-chain/react` reads them).
 */
export const ROUNDS_METADATA = 'rounds'

/** Outside the tool loop, the request with `rounds` for the loop to fill with the turn's rounds; inside, as it is. */
export function collectingRounds(request: ChatClientRequest, rounds: Message[]): ChatClientRequest {
  if (typeof request.context[ROUND_KEY] === 'number') return request
  return { ...request, context: { ...request.context, [TURN_ROUNDS_KEY]: rounds } }
}

/** A stored message as the model gets it: the rounds kept for display stay in memory. */
export function withoutRounds(message: Message): Message {
  if (message.role !== 'assistant' || !message.metadata || !(ROUNDS_METADATA in message.metadata)) return message
  const { [ROUNDS_METADATA]: _rounds, ...metadata } = message.metadata
  return { ...message, metadata }
}
