// The model and tool of the turn benchmarks (memory-turn, session-turn): one tool round a turn,
// both answering at once, so a turn's time is the advisors' and the storage's.
import { defineTool, type ChatModel, type ChatResponse, type Message } from '../src'

export const lookup = defineTool({
  name: 'lookup',
  description: 'Looks up',
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
  execute: ({ q }) => `found ${String(q)}`,
})

/** Asks for `lookup` when the prompt ends with the user's message, answers after the tool's. */
export const instantModel: ChatModel = {
  provider: 'bench',
  call: async (prompt) => {
    const last = prompt.messages.at(-1)!
    const output: Message =
      last.role === 'user'
        ? { role: 'assistant', text: '', toolCalls: [{ id: `c-${last.text}`, name: 'lookup', arguments: '{"q":"x"}' }] }
        : { role: 'assistant', text: `Answer ${prompt.messages.length}`, toolCalls: [] }
    return { results: [{ output, metadata: {} }], metadata: {} } satisfies ChatResponse
  },
  // eslint-disable-next-line require-yield
  stream: async function* () {
    throw new Error('not used')
  },
}
