import { afterEach, describe, expect, it } from 'vitest'
import { ChatClient } from '../../client'
import type { ToolCallback } from '../../core'
import { ScriptedChatModel } from '../../models'
import { defineTool } from '../../tools'
import { mcpTools, type McpToolSet, type McpToolsOptions } from '../index'

// advisor-chain/mcp against servers that misbehave on purpose (hostile-servers.mjs), run in Node and
// in Chromium: one bad tool, answer or silence never costs the other tools, crashes the loop,
// hands the model an unbounded text, or waits without a bound.

export function hostileSuite(fixture: () => string): void {
  const open: McpToolSet[] = []
  const connect = async (path: string, options?: McpToolsOptions) => {
    const set = await mcpTools(`${fixture()}${path}`, options)
    open.push(set)
    return set
  }
  const listing = () => connect('/hostile/listing/mcp')
  const skippedReason = (set: McpToolSet, name: string) => set.skipped.find((tool) => tool.name === name)?.reason

  afterEach(async () => {
    await Promise.all(open.splice(0).map((set) => set.close().catch(() => {})))
  })

  describe('a tool list with bad tools', () => {
    it('offers the good tools and lists every bad one in skipped, in the order the server sent them', async () => {
      const set = await listing()
      expect(set.tools.map((tool) => tool.definition.name)).toEqual(['fine', 'echo'])
      expect(set.skipped.map((tool) => tool.name)).toEqual([
        'dup',
        'dup',
        'required-not-a-list',
        'string-schema',
        'no-schema',
        '(tool 7 of the list, without a name)',
        '(tool 8 of the list, without a name)',
        'deep-300',
        'deep-3000',
        'long-description',
        'broken-output-schema',
      ])
    })

    it('skips every tool of a name the server lists twice', async () => {
      expect(skippedReason(await listing(), 'dup')).toBe(
        "the server lists 2 tools named 'dup', and a call by that name could run any of them",
      )
    })

    it.each([
      ['required-not-a-list', 'inputSchema.required: Invalid input: expected array, received string'],
      ['string-schema', 'inputSchema.type: Invalid input: expected "object"'],
      ['no-schema', 'inputSchema: Invalid input: expected object, received undefined'],
    ])('skips %s, whose definition is not a tool as MCP defines one, naming the field', async (name, issue) => {
      expect(skippedReason(await listing(), name)).toBe(`it is not a tool as MCP defines one (${issue})`)
    })

    it('skips an entry without a name, naming its place in the list', async () => {
      const set = await listing()
      expect(skippedReason(set, '(tool 7 of the list, without a name)')).toContain(
        'name: Invalid input: expected string, received number',
      )
      expect(skippedReason(set, '(tool 8 of the list, without a name)')).toContain('expected object, received null')
    })

    it.each(['deep-300', 'deep-3000'])('skips %s, nested past 64 levels, without a stack overflow', async (name) => {
      expect(skippedReason(await listing(), name)).toBe('its definition is nested more than 64 levels deep')
    })

    it('skips a tool whose description and input schema are longer than maxResultLength', async () => {
      expect(skippedReason(await listing(), 'long-description')).toMatch(
        /^its description and input schema take 2000\d\d characters, more than maxResultLength \(100000\)/,
      )
    })

    it('skips a tool whose output schema is not a valid JSON Schema', async () => {
      expect(skippedReason(await listing(), 'broken-output-schema')).toMatch(
        /^its output schema is not a valid JSON Schema \(\/properties\/n\/type: /,
      )
    })

    it('runs a good tool of the list, and answers a skipped one as unknown', async () => {
      const set = await listing()
      const model = new ScriptedChatModel([
        { toolCalls: [{ name: 'fine' }, { name: 'dup' }] },
        (prompt) => toolTexts(prompt.messages).join(' | '),
      ])
      expect(await chat(model, set.tools).prompt('go').call().content()).toBe(
        "fine ran | Error: unknown tool 'dup'. Available tools: fine, echo.",
      )
    })
  })

  describe('tools of one name from two sources', () => {
    it('fail a turn before the model is asked when a page tool is named like an MCP tool, naming both', async () => {
      const set = await listing()
      const model = new ScriptedChatModel(['never asked'])
      const local = defineTool({ name: 'echo', description: 'Echoes', inputSchema: {}, execute: () => 'local' })
      const error = await chat(model, [local, ...set.tools])
        .prompt('echo')
        .call()
        .content()
        .then(
          () => new Error('the turn succeeded'),
          (thrown: unknown) => thrown as Error,
        )
      expect(error.message).toBe(
        `Two tools are named 'echo': a tool of this page and a tool of mcp 'fixture-hostile-listing 1.0.0' at ${fixture()}/hostile/listing/mcp. Names must be unique in one request: rename one, or give mcpTools a prefix`,
      )
      expect(model.prompts).toHaveLength(0)
    })

    it('fail a streamed turn before the model is asked when two MCP servers list one name', async () => {
      const [first, second] = [await listing(), await listing()]
      const model = new ScriptedChatModel(['never asked'])
      const stream = chat(model, [...first.tools, ...second.tools])
        .prompt('echo')
        .stream()
        .content()
      await expect(drain(stream)).rejects.toThrow(/^Two tools are named 'fine': a tool of mcp 'fixture-hostile-listing/)
      expect(model.prompts).toHaveLength(0)
    })

    it('are kept apart by a prefix', async () => {
      const [first, second] = [await listing(), await connect('/hostile/listing/mcp', { prefix: 'b_' })]
      const model = new ScriptedChatModel([
        { toolCalls: [{ name: 'b_fine' }] },
        (prompt) => toolTexts(prompt.messages)[0]!,
      ])
      expect(
        await chat(model, [...first.tools, ...second.tools])
          .prompt('go')
          .call()
          .content(),
      ).toBe('fine ran')
    })
  })

  describe('texts the model reads from a server', () => {
    const results = () => connect('/hostile/results/mcp', { maxResultLength: 1000 })

    it.each([
      ['huge-error', 'an isError result of 2 MB', /^Error: e{900,}… \(cut from 2097152 characters\)$/],
      [
        'huge-rpc-error',
        'a JSON-RPC error of 1 MB',
        /^Error: tool 'huge-rpc-error' of the MCP server [\d.:]+ failed: (MCP error -32000: )+r{800,}… \(cut from \d+ characters\)$/,
      ],
      [
        'huge-transport-error',
        'an HTTP error whose body is 1 MB',
        /^Error: tool 'huge-transport-error' of the MCP server [\d.:]+ failed: .*t{800,}… \(cut from \d+ characters\)$/,
      ],
    ])('cut %s (%s) to maxResultLength', async (name, _what, expected) => {
      const text = await callTool(await results(), name)
      expect(text).toMatch(expected)
      expect(text.length).toBeLessThanOrEqual('Error: '.length + 1000)
    })
  })

  it("checks a result against the tool's output schema, as the SDK's own listing would have it", async () => {
    const set = await connect('/hostile/results/mcp')
    expect(await callTool(set, 'wrong-structure')).toMatch(
      /^Error: tool 'wrong-structure' of the MCP server [\d.:]+ failed: MCP error -32602: Structured content does not match the tool's output schema: /,
    )
  })

  describe('a server that does not answer', () => {
    it('rejects mcpTools when the server does not answer the connection within timeoutMs', async () => {
      const host = new URL(fixture()).host
      await expect(mcpTools(`${fixture()}/hostile/silent/mcp`, { timeoutMs: 300 })).rejects.toThrow(
        `Could not connect to an MCP server at ${host}: no answer within 300 ms.`,
      )
    })

    it('rejects mcpTools when the tool list (and then the end of the session) never comes within timeoutMs', async () => {
      const host = new URL(fixture()).host
      await expect(mcpTools(`${fixture()}/hostile/mute/mcp`, { timeoutMs: 300 })).rejects.toThrow(
        `The MCP server at ${host} did not list its tools: the list was not complete within 300 ms`,
      )
    })

    it('answers a call the server never answers with an Error: response after timeoutMs', async () => {
      const set = await connect('/hostile/results/mcp', { timeoutMs: 300 })
      expect(await callTool(set, 'never-answers')).toMatch(
        /^Error: tool 'never-answers' of the MCP server [\d.:]+ failed: no answer within 300 ms$/,
      )
    })

    it.each([
      ['maxResultLength', { maxResultLength: 10 }, 'maxResultLength must be a whole number of at least 100, got 10'],
      ['timeoutMs', { timeoutMs: Infinity }, 'timeoutMs must be a whole number of at least 1, got Infinity'],
    ])('refuses a %s that bounds nothing, before connecting', async (_name, options, message) => {
      await expect(mcpTools(`${fixture()}/hostile/silent/mcp`, options)).rejects.toThrow(message)
    })
  })
}

function chat(model: ScriptedChatModel, tools: ToolCallback[]) {
  return ChatClient.builder(model)
    .defaultTools(...tools)
    .build()
}

/** The texts of the last tool message's responses. */
function toolTexts(messages: readonly { role: string }[]): string[] {
  const last = messages.at(-1) as { role: string; responses?: { responseData: string }[] }
  return last.role === 'tool' ? last.responses!.map((response) => response.responseData) : [`(${last.role})`]
}

/** Calls one tool of the set through the loop and returns the text the model gets. */
async function callTool(set: McpToolSet, name: string): Promise<string> {
  const model = new ScriptedChatModel([{ toolCalls: [{ name }] }, (prompt) => toolTexts(prompt.messages)[0]!])
  return (await chat(model, set.tools).prompt(name).call().content())!
}

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream) {
    /* read to the end */
  }
}
