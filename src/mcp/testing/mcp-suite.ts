import { afterEach, describe, expect, it } from 'vitest'
import { ChatClient } from '../../client'
import { ToolCallingAdvisor, ObserverAdvisor } from '../../advisors'
import { isAbortError, type ChatClientRequest, type CallAdvisorChain, type ToolCallback } from '../../core'
import { ScriptedChatModel } from '../../models'
import { TraceCollector } from '../../trace'
import { mcpTools, type McpToolSet, type McpToolsOptions } from '../index'
import type { McpServerKind } from './servers'

// One specification of advisor-chain/mcp against real MCP servers, run in Node and in Chromium
// (where the page talks to the loopback servers directly). The environment starts and kills servers.

export interface OwnServer {
  origin: string
  port: number
  pid: number
}

export interface McpTestEnvironment {
  /** Origins of the servers started once for the run. */
  everything: string
  fixture: string
  /** Starts a server of the test's own, to kill and restart. */
  start(kind: McpServerKind, port?: number): Promise<OwnServer>
  kill(pid: number): Promise<void>
}

const TOKEN = 'tok-4f9a1c7e2b'

export function mcpSuite(environment: () => McpTestEnvironment): void {
  const open: McpToolSet[] = []
  const own: OwnServer[] = []
  const connect = async (url: string, options?: McpToolsOptions) => {
    const set = await mcpTools(url, options)
    open.push(set)
    return set
  }
  const startOwn = async (kind: Parameters<McpTestEnvironment['start']>[0], port?: number) => {
    const server = await environment().start(kind, port)
    own.push(server)
    return server
  }
  const everything = () => `${environment().everything}/mcp`

  afterEach(async () => {
    await Promise.all(open.splice(0).map((set) => set.close().catch(() => {})))
    await Promise.all(own.splice(0).map((server) => environment().kill(server.pid)))
  })

  describe('listing', () => {
    it("offers the reference server's tools as ToolCallbacks with their JSON Schemas as they came", async () => {
      const set = await connect(everything())
      const names = set.tools.map((tool) => tool.definition.name)
      expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']))
      const sum = set.tools.find((tool) => tool.definition.name === 'get-sum')!
      expect(sum.definition.inputSchema).toMatchObject({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
        $schema: 'http://json-schema.org/draft-07/schema#',
      })
      expect(sum.metadata.source).toEqual({ kind: 'mcp', name: 'mcp-servers/everything 2.0.0', url: everything() })
    })

    it('names the tools with the prefix', async () => {
      const set = await connect(everything(), { prefix: 'ref_' })
      expect(set.tools.map((tool) => tool.definition.name)).toContain('ref_get-sum')
    })

    it('falls back to the older HTTP+SSE transport when the URL answers Streamable HTTP with a 4xx', async () => {
      const server = await startOwn('everything-sse')
      const set = await connect(`${server.origin}/sse`)
      expect(set.tools.map((tool) => tool.definition.name)).toContain('echo')
      expect(await callTool(set, 'echo', { message: 'over SSE' })).toBe('Echo: over SSE')
    })
  })

  describe('a tool round through the chain', () => {
    it('runs an MCP tool the model calls, and the model answers from its result', async () => {
      const set = await connect(everything())
      const collector = new TraceCollector()
      const model = new ScriptedChatModel([
        { toolCalls: [{ id: 'c1', name: 'get-sum', arguments: { a: 2, b: 3 } }] },
        (prompt) => `The tool said: ${toolMessage(prompt.messages)}`,
      ])
      const answer = await chat(model, set.tools, collector).prompt('What is 2 + 3?').call().content()

      expect(answer).toBe('The tool said: The sum of 2 and 3 is 5.')
      const end = collector.ofType('tool-end')[0]!
      expect(end.source).toEqual(set.server)
      expect(end.detail).toMatchObject({
        server: 'mcp-servers/everything 2.0.0',
        request: { method: 'tools/call', params: { name: 'get-sum', arguments: { a: 2, b: 3 } } },
        response: { content: [{ type: 'text', text: 'The sum of 2 and 3 is 5.' }] },
      })
      expect(collector.ofType('tool-start')[0]!.source).toEqual(set.server)
    })

    it('answers arguments that fail the server schema with an Error: response, without asking the server', async () => {
      const set = await connect(everything())
      const collector = new TraceCollector()
      const model = new ScriptedChatModel([
        { toolCalls: [{ id: 'c1', name: 'get-sum', arguments: { a: 'two', b: 3 } }] },
        (prompt) => toolMessage(prompt.messages),
      ])
      const answer = await chat(model, set.tools, collector).prompt('sum').call().content()
      expect(answer).toBe("Error: invalid arguments for tool 'get-sum': /a must be number")
      expect(collector.ofType('tool-end')[0]!.detail).toBeUndefined()
    })

    it('describes image content instead of inlining it', async () => {
      const set = await connect(everything())
      const text = await callTool(set, 'get-tiny-image', {})
      expect(text).toMatch(/^Here's the image you requested:\n\[image: image\/png, \d+ bytes\]/)
    })
  })

  describe('failures', () => {
    it('turns an isError result into an Error: response and the turn goes on', async () => {
      const set = await connect(everything())
      const model = new ScriptedChatModel([
        {
          toolCalls: [{ id: 'c1', name: 'get-resource-reference', arguments: { resourceType: 'Text', resourceId: 0 } }],
        },
        (prompt) => toolMessage(prompt.messages),
      ])
      const answer = await chat(model, set.tools).prompt('fetch').call().content()
      expect(answer).toBe('Error: Invalid resourceId: 0. Must be a finite positive integer.')
    })

    it('cancels a long-running tool when the loop is aborted, and the turn rejects with an AbortError', async () => {
      const set = await connect(everything())
      const collector = new TraceCollector()
      const controller = new AbortController()
      const model = new ScriptedChatModel([
        { toolCalls: [{ name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 30 } }] },
        'never reached',
      ])
      const started = Date.now()
      const turn = chat(model, set.tools, abortOnToolStart(collector, controller))
        .prompt('run it')
        .signal(controller.signal)
        .call()
        .content()
      const error: unknown = await turn.catch((thrown: unknown) => thrown)
      expect(isAbortError(error)).toBe(true)
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(model.prompts).toHaveLength(1)
      // The session is still good for the next call.
      expect(await callTool(set, 'echo', { message: 'after abort' })).toBe('Echo: after abort')
    })

    it('answers with Error: when the server is killed mid-call, and the loop ends cleanly', async () => {
      const server = await startOwn('everything')
      const set = await connect(`${server.origin}/mcp`)
      const collector = new TraceCollector()
      const model = new ScriptedChatModel([
        { toolCalls: [{ name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 30 } }] },
        (prompt) => `I could not run it: ${toolMessage(prompt.messages)}`,
      ])
      // Killed while the call runs on the server: its response stream breaks mid-call.
      const killOnToolStart = {
        emit: (event: Parameters<TraceCollector['emit']>[0]) => {
          collector.emit(event)
          if (event.type === 'tool-start') setTimeout(() => void environment().kill(server.pid), 500)
        },
      }
      const started = Date.now()
      const answer = await chat(model, set.tools, killOnToolStart).prompt('run it').call().content()
      expect(answer).toMatch(
        new RegExp(
          `^I could not run it: Error: tool 'trigger-long-running-operation' (of the MCP server 127\\.0\\.0\\.1:${server.port} )?failed: `,
        ),
      )
      expect(Date.now() - started).toBeLessThan(15_000)
      expect(collector.ofType('tool-loop-end')[0]!.reason).toBe('answer')
    })

    it('reconnects with back-off once a killed server is back, in a new session', async () => {
      const server = await startOwn('everything')
      const set = await connect(`${server.origin}/mcp`)
      await environment().kill(server.pid)
      expect(await callTool(set, 'echo', { message: 'down' })).toMatch(
        /^Error: tool 'echo' of the MCP server .* failed: /,
      )
      expect(await callTool(set, 'echo', { message: 'down' })).toMatch(
        /^Error: tool 'echo' failed: the MCP server .* is unreachable/,
      )
      expect(await callTool(set, 'echo', { message: 'down' })).toMatch(/the next reconnect attempt is in 1 s$/)
      await startOwn('everything', server.port)
      await new Promise((resolve) => setTimeout(resolve, 600))
      expect(await callTool(set, 'echo', { message: 'back' })).toBe('Echo: back')
      // Two server processes start in this test: on a busy machine that alone can take seconds.
    }, 20_000)

    it('starts a new session when the server answers 404 for the old one, and the call goes through', async () => {
      const server = await startOwn('fixture')
      const set = await connect(`${server.origin}/mcp`)
      await environment().kill(server.pid)
      await startOwn('fixture', server.port)
      expect(await callTool(set, 'add-tool', { name: 'after-restart' })).toBe('added after-restart')
    })
  })

  describe('list changes', () => {
    it('lists the tools again when the server says its list changed', async () => {
      const set = await connect(`${environment().fixture}/mcp`)
      const changed = new Promise<void>((resolve) => set.onChange(resolve))
      expect(await callTool(set, 'add-tool', { name: 'greet' })).toBe('added greet')
      await changed
      expect(set.tools.map((tool) => tool.definition.name)).toEqual(['add-tool', 'greet'])
    })

    it('offers a tool the server added to the next round of the same turn (through doBeforeCall)', async () => {
      const set = await connect(`${environment().fixture}/mcp`)
      const changed = new Promise<void>((resolve) => set.onChange(resolve))
      class McpAwareLoop extends ToolCallingAdvisor {
        #rounds = 0
        protected override async doBeforeCall(request: ChatClientRequest, _chain: CallAdvisorChain) {
          // list_changed travels on its own stream: after the round that added a tool, wait for it.
          if (this.#rounds++ === 1) await changed
          const tools = set.latest(request.prompt.options.tools ?? [])
          return { ...request, prompt: { ...request.prompt, options: { ...request.prompt.options, tools } } }
        }
      }
      const model = new ScriptedChatModel([
        { toolCalls: [{ name: 'add-tool', arguments: { name: 'wave' } }] },
        { toolCalls: [{ name: 'wave' }] },
        (prompt) => toolMessage(prompt.messages),
      ])
      const client = ChatClient.builder(model)
        .defaultTools(...set.tools)
        .defaultAdvisors(new McpAwareLoop())
        .build()
      expect(await client.prompt('add a tool, then use it').call().content()).toBe('wave ran')
      expect(model.prompts[1]!.options.tools!.map((tool) => tool.definition.name)).toEqual(['add-tool', 'wave'])
    })
  })

  describe('bad input', () => {
    it('rejects a URL that is not an MCP server, naming its host and never a header value', async () => {
      const host = new URL(environment().fixture).host
      const error = await mcpTools(`${environment().fixture}/not-mcp`, {
        headers: { Authorization: `Bearer ${TOKEN}` },
      }).then(
        () => new Error('mcpTools resolved'),
        (thrown: unknown) => thrown as Error,
      )
      expect(error.message).toContain(`Could not connect to an MCP server at ${host}`)
      expect(error.message).not.toContain(TOKEN)
    })

    it('rejects a URL where nothing listens, naming its host', async () => {
      const server = await startOwn('fixture')
      await environment().kill(server.pid)
      await expect(mcpTools(`${server.origin}/mcp`)).rejects.toThrow(
        `Could not connect to an MCP server at 127.0.0.1:${server.port}`,
      )
    })

    it('leaves out tools with a malformed schema or name, says why, and the loop goes on', async () => {
      const set = await connect(`${environment().fixture}/malformed/mcp`)
      expect(set.tools.map((tool) => tool.definition.name)).toEqual(['fine'])
      expect(set.skipped.map((tool) => tool.name)).toEqual(['misspelt', 'has.dot'])
      expect(set.skipped[0]!.reason).toMatch(
        /^its input schema is not a valid JSON Schema \(\/properties\/count\/type: /,
      )
      expect(set.skipped[1]!.reason).toContain("its name 'has.dot' is not accepted by model APIs")
      const model = new ScriptedChatModel([
        { toolCalls: [{ name: 'misspelt', arguments: { count: 1 } }] },
        (prompt) => toolMessage(prompt.messages),
      ])
      expect(await chat(model, set.tools).prompt('count').call().content()).toBe(
        "Error: unknown tool 'misspelt'. Available tools: fine.",
      )
    })

    it('answers a result over the size limit with an Error: response', async () => {
      const set = await connect(everything(), { maxResultLength: 1000 })
      expect(await callTool(set, 'echo', { message: 'x'.repeat(2000) })).toBe(
        "Error: tool 'echo' returned 2006 characters, more than the limit of 1000; ask for less (a narrower query, fewer items)",
      )
    })

    it('masks header values in tool results and traces', async () => {
      const set = await connect(everything(), { headers: { 'X-Api-Key': TOKEN } })
      const collector = new TraceCollector()
      const model = new ScriptedChatModel([
        { toolCalls: [{ name: 'echo', arguments: { message: `my key is ${TOKEN}` } }] },
        (prompt) => toolMessage(prompt.messages),
      ])
      const client = ChatClient.builder(model)
        .defaultTools(...set.tools)
        .defaultAdvisors(new ObserverAdvisor({ sink: collector, redact: set.redaction }))
        .build()
      expect(await client.prompt('echo').call().content()).toBe('Echo: my key is [redacted]')
      expect(JSON.stringify(collector.events)).toContain('my key is [redacted]')
      expect(JSON.stringify(collector.events)).not.toContain(TOKEN)
    })
  })
}

function chat(model: ScriptedChatModel, tools: ToolCallback[], sink?: { emit: TraceCollector['emit'] }) {
  const builder = ChatClient.builder(model).defaultTools(...tools)
  if (sink) builder.defaultAdvisors(new ObserverAdvisor({ sink }))
  return builder.build()
}

/** The text of the last tool response in `messages`. */
function toolMessage(messages: readonly { role: string }[]): string {
  const last = messages.at(-1) as { role: string; responses?: { responseData: string }[] }
  return last.role === 'tool' ? last.responses![0]!.responseData : `(no tool message, but ${last.role})`
}

/** Calls one tool of the set directly, as the manager would, and returns its text or its `Error:` text. */
async function callTool(set: McpToolSet, name: string, args: Record<string, unknown>): Promise<string> {
  const model = new ScriptedChatModel([
    { toolCalls: [{ name, arguments: args }] },
    (prompt) => toolMessage(prompt.messages),
  ])
  return (await chat(model, set.tools).prompt(name).call().content())!
}

function abortOnToolStart(collector: TraceCollector, controller: AbortController) {
  return {
    emit: (event: Parameters<TraceCollector['emit']>[0]) => {
      collector.emit(event)
      if (event.type === 'tool-start') setTimeout(() => controller.abort(), 300)
    },
  }
}
