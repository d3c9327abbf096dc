import { agentTool, ChatClient, defineTool, type ChatModel, type ToolCallback } from 'advisor-chain'
import { calculator } from './tools'

// The demo's sub-agent: a researcher with a prompt and tools of its own, which the assistant hands
// a task to through `agentTool`. It has no observer: the assistant's records it where it is called,
// so its rounds show nested under the assistant's tool call in the devtools.

export const RESEARCHER_SYSTEM =
  'You are a researcher working for another assistant. Use your tools to find out, then answer the task in two or three sentences.'

export const pageOutline = defineTool({
  name: 'page_outline',
  description: 'Reads this page: its title and the text of its headings, in order.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false } as const,
  execute: () => ({
    title: document.title,
    headings: Array.from(document.querySelectorAll('h1, h2, h3'), (heading) => heading.textContent?.trim() ?? '')
      .filter(Boolean)
      .slice(0, 20),
  }),
})

/** The researcher as a tool of the assistant, on the same model. */
export function researcherTool(model: ChatModel): ToolCallback {
  const researcher = ChatClient.builder(model)
    .defaultSystem(RESEARCHER_SYSTEM)
    .defaultTools(pageOutline, calculator)
    .build()
  return agentTool(researcher, {
    name: 'researcher',
    description:
      'Hands a research task to a researcher sub-agent that can read this page and do arithmetic. Give it the whole task.',
  })
}
