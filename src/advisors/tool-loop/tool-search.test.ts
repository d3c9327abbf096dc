import { describe, expect, it } from 'vitest'
import { ChatClient } from '../../client'
import { ScriptedChatModel, type ScriptStep } from '../../models'
import { collect } from '../../core/testing/collect'
import { defineTool } from '../../tools'
import { TOOL_SEARCH_NAME, ToolSearchToolCallingAdvisor } from './tool-search'

const log: string[] = []
const catalogue = [
  ['weather_now', 'Current weather for a city'],
  ['currency_convert', 'Converts an amount between currencies'],
  ['notes_add', 'Saves a note'],
  ['notes_delete', 'Deletes a note'],
  ['timer_start', 'Starts a timer'],
].map(([name, description]) =>
  defineTool({
    name: name!,
    description: description!,
    inputSchema: { type: 'object' },
    execute: () => (log.push(name!), `${name} done`),
  }),
)

const script = (): ScriptStep[] => [
  { toolCalls: [{ name: TOOL_SEARCH_NAME, arguments: { query: 'weather city' } }] },
  { toolCalls: [{ name: 'weather_now', arguments: {} }] },
  { toolCalls: [{ name: 'weather_now', arguments: { again: true } }] },
  'Sunny.',
]

const offered = (model: ScriptedChatModel) =>
  model.prompts.map((p) => (p.options.tools ?? []).map((t) => t.definition.name))

describe('ToolSearchToolCallingAdvisor', () => {
  it('offers only the search tool first, then the tools the model found', async () => {
    const model = new ScriptedChatModel(script())
    const client = ChatClient.builder(model)
      .defaultTools(...catalogue)
      .defaultAdvisors(ToolSearchToolCallingAdvisor.builder().build())
      .build()
    expect(await client.prompt('Weather in Oslo?').call().content()).toBe('Sunny.')
    expect(offered(model)).toEqual([
      [TOOL_SEARCH_NAME],
      [TOOL_SEARCH_NAME, 'weather_now'],
      [TOOL_SEARCH_NAME, 'weather_now'],
      [TOOL_SEARCH_NAME, 'weather_now'],
    ])
    const searchResult = model.prompts[1]!.messages.at(-1)
    expect(searchResult).toMatchObject({ role: 'tool', responses: [{ name: TOOL_SEARCH_NAME }] })
    expect(JSON.stringify(searchResult)).toContain('Current weather for a city')
  })

  it('keeps the found tools when the loop history is off (Spring AI #7034)', async () => {
    const model = new ScriptedChatModel(script())
    const advisor = ToolSearchToolCallingAdvisor.builder().disableInternalConversationHistory().build()
    await ChatClient.builder(model)
      .defaultTools(...catalogue)
      .defaultAdvisors(advisor)
      .build()
      .prompt('Weather?')
      .call()
      .content()
    expect(model.prompts[2]!.messages.map((m) => m.role)).toEqual(['tool'])
    expect(offered(model)[3]).toEqual([TOOL_SEARCH_NAME, 'weather_now'])
  })

  it('works the same on the stream path', async () => {
    const model = new ScriptedChatModel(script())
    const client = ChatClient.builder(model)
      .defaultTools(...catalogue)
      .defaultAdvisors(ToolSearchToolCallingAdvisor.builder().maxResults(1).build())
      .build()
    expect((await collect(client.prompt('Weather?').stream().content())).join('')).toBe('Sunny.')
    expect(offered(model)[1]).toEqual([TOOL_SEARCH_NAME, 'weather_now'])
  })

  it('says so when nothing matches', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: TOOL_SEARCH_NAME, arguments: { query: 'teleport' } }] },
      'No tool.',
    ])
    await ChatClient.builder(model)
      .defaultTools(...catalogue)
      .defaultAdvisors(ToolSearchToolCallingAdvisor.builder().build())
      .build()
      .prompt('q')
      .call()
      .content()
    expect(JSON.stringify(model.prompts[1]!.messages.at(-1))).toContain('No tool matches \\"teleport\\"')
  })
})
