import type { Message, Prompt } from '../../core'
import type { ScriptFunction } from '../../models'

// Scripts for the scripted model in the sub-agent tests: a parent that hands its task to a tool.

const lastOf = (prompt: Prompt): Message => prompt.messages[prompt.messages.length - 1]!

/** The tool responses the model got last, as text; undefined when the last message is not one. */
export function toolAnswer(prompt: Prompt): string | undefined {
  const last = lastOf(prompt)
  return last.role === 'tool' ? last.responses.map((response) => response.responseData).join('\n') : undefined
}

/** A model that calls `tool` once with `task`, then answers with what the tool said (`got: …`). */
export const delegating =
  (tool: string, task = 'look it up', id = `call-${tool}`): ScriptFunction =>
  (prompt) => {
    const answer = toolAnswer(prompt)
    if (answer !== undefined) return `got: ${answer}`
    return { toolCalls: [{ id, name: tool, arguments: { task } }] }
  }
