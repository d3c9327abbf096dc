// What a sub-agent costs through agentTool over calling the child client directly: a parent turn
// (one tool round, model answering at once) whose tool is the child, by agentTool and by a
// hand-written defineTool that calls the child itself (a fresh conversation, the parent's signal),
// and the child called on its own. The figure is the ratio agentTool / hand-written in one run.
//
// One run on the project's machine (Node 20, 2 cores shared with other work): 25.3 µs by agentTool,
// 26.4 µs by hand, 8.4 µs for the child alone; ratio 0.96 (agentTool's depth and cycle checks and
// run links cost nothing measurable over the nested call itself).
import { ChatClient, agentTool, defineTool, type ChatModel, type ChatResponse, type Message } from '../src'
import { measure, median, report, round } from './measure'

const ITERATIONS = 500

/** Calls `tool` when the prompt ends with the user's message; answers after the tool's. */
function instantModel(tool?: string): ChatModel {
  return {
    provider: 'bench',
    call: async (prompt) => {
      const last = prompt.messages.at(-1)!
      const output: Message =
        tool && last.role === 'user'
          ? { role: 'assistant', text: '', toolCalls: [{ id: 'c1', name: tool, arguments: '{"task":"look"}' }] }
          : { role: 'assistant', text: `Answer ${prompt.messages.length}`, toolCalls: [] }
      return { results: [{ output, metadata: {} }], metadata: {} } satisfies ChatResponse
    },
    // eslint-disable-next-line require-yield
    stream: async function* () {
      throw new Error('not used')
    },
  }
}

const child = ChatClient.builder(instantModel()).defaultSystem('You research.').build()

const viaAgentTool = ChatClient.builder(instantModel('researcher'))
  .defaultTools(agentTool(child, { name: 'researcher', description: 'Researches' }))
  .build()

let conversations = 0
const byHand = ChatClient.builder(instantModel('researcher'))
  .defaultTools(
    defineTool({
      name: 'researcher',
      description: 'Researches',
      inputSchema: { type: 'object', properties: { task: { type: 'string' } }, required: ['task'] } as const,
      execute: async ({ task }, { signal }) => {
        const spec = child.prompt(task).advisorParams({ chat_memory_conversation_id: `r-${conversations++}` })
        if (signal) spec.signal(signal)
        return (await spec.call().content()) ?? ''
      },
    }),
  )
  .build()

// Each measured three times, taking turns, so neither gains from running after the other; the median.
const figures = { agentTool: [] as number[], byHand: [] as number[], child: [] as number[] }
for (let repeat = 0; repeat < 3; repeat++) {
  figures.byHand.push(await measure(() => byHand.prompt('go').call().content(), ITERATIONS))
  figures.agentTool.push(await measure(() => viaAgentTool.prompt('go').call().content(), ITERATIONS))
  figures.child.push(await measure(() => child.prompt('look').call().content(), ITERATIONS))
}
const [agentToolUs, byHandUs, childUs] = [median(figures.agentTool), median(figures.byHand), median(figures.child)]

report('agent-tool', {
  what: 'µs per parent turn (one tool round) whose tool is a child client: by agentTool, by a hand-written tool; and the child alone',
  agentToolUs: round(agentToolUs, 1),
  handWrittenUs: round(byHandUs, 1),
  childAloneUs: round(childUs, 1),
  ratioAgentToolToHandWritten: round(agentToolUs / byHandUs, 2),
})
