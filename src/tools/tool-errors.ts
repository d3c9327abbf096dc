import type { ToolResponse } from '../core'

/**
 * A tool call that could not be answered normally. Its message is written for the model: the
 * manager sends it back as a tool response starting with `Error:` so the model can repair.
 */
export class ToolCallError extends Error {
  override readonly name = 'ToolCallError'
}

/**
 * The per-turn tool call limits were exceeded with `onExceed: 'throw'`. The calls of the batch
 * before the breach ran; their responses are `partialToolResponses`, as in Spring AI.
 */
export class ToolCallLimitExceededError extends Error {
  override readonly name = 'ToolCallLimitExceededError'

  constructor(
    message: string,
    readonly partialToolResponses: readonly ToolResponse[] = [],
  ) {
    super(message)
  }
}
