import type { Advisor } from './advisor'
import type { AssistantMessage } from './messages'

/**
 * An advisor that can keep a turn where a reload finds it (chat memory inside the tool loop). An
 * advisor that makes a round wait for the user (a tool approval) checkpoints the assistant's tool
 * calls first, so the turn can resume after a reload.
 */
export interface TurnCheckpoint {
  checkpointTurn(message: AssistantMessage, context: Readonly<Record<string, unknown>>): Promise<void>
}

export function isTurnCheckpoint(advisor: unknown): advisor is TurnCheckpoint {
  return typeof (advisor as Partial<TurnCheckpoint> | null)?.checkpointTurn === 'function'
}

/** Checkpoints `message` with every advisor of the chain that keeps turns. */
export async function checkpointTurn(
  advisors: readonly Advisor[],
  message: AssistantMessage,
  context: Readonly<Record<string, unknown>>,
): Promise<void> {
  for (const advisor of advisors) if (isTurnCheckpoint(advisor)) await advisor.checkpointTurn(message, context)
}
