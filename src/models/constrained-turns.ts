import type { ChatOptions, Message, ToolDefinition, UserMessage } from '../core'
import { toolInstructions } from './constrained-json'

// The conversation as plain text turns, for in-browser engines whose chat template takes strings:
// one system turn first, the model's earlier tool calls in the JSON shape it must answer in, tool
// results as a user turn, and no two user turns in a row.

export interface TextTurn {
  role: 'system' | 'user' | 'assistant'
  content: string
}

/** The tools the model may call after the prompt's tool choice, and whether it must call one. */
export function offeredTools(options: ChatOptions): { tools: ToolDefinition[]; callRequired: boolean } {
  const all = (options.tools ?? []).map((tool) => tool.definition)
  const choice = options.toolChoice
  if (choice === 'none') return { tools: [], callRequired: false }
  if (typeof choice === 'object') return { tools: all.filter((tool) => tool.name === choice.name), callRequired: true }
  return { tools: all, callRequired: choice === 'required' && all.length > 0 }
}

/** Turns without tools: system messages joined in front, assistant text as it was. */
export function plainTurns(messages: readonly Message[], userText: (message: UserMessage) => string): TextTurn[] {
  return turns(messages, [], userText, (text) => text)
}

/** Turns for the constrained-JSON tool strategy: the tool instructions join the system text. */
export function constrainedTurns(
  messages: readonly Message[],
  tools: readonly ToolDefinition[],
  userText: (message: UserMessage) => string,
): TextTurn[] {
  return turns(messages, [toolInstructions(tools)], userText, (text, calls) =>
    JSON.stringify(calls.length > 0 ? { tool_calls: calls } : { answer: text }),
  )
}

function turns(
  messages: readonly Message[],
  extraSystem: string[],
  userText: (message: UserMessage) => string,
  assistantText: (text: string, calls: Array<{ name: string; arguments: unknown }>) => string,
): TextTurn[] {
  const system = [...messages.flatMap((message) => (message.role === 'system' ? [message.text] : [])), ...extraSystem]
  const out: TextTurn[] = system.length > 0 ? [{ role: 'system', content: system.join('\n\n') }] : []
  for (const message of messages) {
    let turn: TextTurn | undefined
    if (message.role === 'user') turn = { role: 'user', content: userText(message) }
    else if (message.role === 'assistant') {
      const calls = message.toolCalls.map((call) => ({ name: call.name, arguments: parsedArguments(call.arguments) }))
      turn = { role: 'assistant', content: assistantText(message.text, calls) }
    } else if (message.role === 'tool') turn = { role: 'user', content: toolResultsText(message.responses) }
    if (!turn) continue
    const last = out.at(-1)
    if (last?.role === 'user' && turn.role === 'user') last.content = `${last.content}\n\n${turn.content}`
    else out.push(turn)
  }
  return out
}

function toolResultsText(responses: ReadonlyArray<{ id: string; name: string; responseData: string }>): string {
  return `Tool results:\n${responses.map((response) => `- ${response.name} (${response.id}): ${response.responseData}`).join('\n')}`
}

function parsedArguments(args: string): unknown {
  try {
    return JSON.parse(args || '{}') as unknown
  } catch {
    return args
  }
}
