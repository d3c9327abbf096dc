import { describe, expect, it } from 'vitest'
import {
  assistantMessage,
  toolResponseMessage,
  userMessage,
  type Message,
  type ToolCall,
  type ChatResponse,
  type Prompt,
  type ToolCallback,
} from '../core'
import { defineTool } from './define-tool'
import { ToolCallingManager } from './manager'
import { ToolCallLimitExceededError } from './tool-errors'

const call = (name: string, args: unknown = {}, id = `id-${name}-${JSON.stringify(args)}`): ToolCall => ({
  id,
  name,
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
})

const responseWith = (...toolCalls: ToolCall[]): ChatResponse => ({
  results: [{ output: assistantMessage('', toolCalls), metadata: { finishReason: 'tool_calls' } }],
  metadata: {},
})

const prompt = (tools: ToolCallback[], messages: Message[] = [userMessage('go')]): Prompt => ({
  messages,
  options: { tools },
})

const echo = defineTool({
  name: 'echo',
  description: 'Echo',
  inputSchema: { type: 'object', properties: { value: { type: 'string' } } },
  execute: ({ value }) => value ?? '',
})

const manager = () => ToolCallingManager.builder().build()

const responseTexts = async (history: Promise<{ conversationHistory: Message[] }>) => {
  const last = (await history).conversationHistory.at(-1)!
  return last.role === 'tool' ? last.responses.map((r) => r.responseData) : []
}

describe('ToolCallingManager', () => {
  it('appends the assistant message with the calls and one tool message to the prompt', async () => {
    const result = await manager().executeToolCalls(prompt([echo]), responseWith(call('echo', { value: 'a' }, 'c1')))
    expect(result.conversationHistory).toEqual([
      userMessage('go'),
      assistantMessage('', [{ id: 'c1', name: 'echo', arguments: '{"value":"a"}' }]),
      toolResponseMessage([{ id: 'c1', name: 'echo', responseData: 'a' }]),
    ])
    expect(result.returnDirect).toBe(false)
  })

  it('fails with "No tool call requested by the chat model" when there is none', async () => {
    await expect(manager().executeToolCalls(prompt([echo]), responseWith())).rejects.toThrow(
      'No tool call requested by the chat model',
    )
  })

  it('runs parallel calls concurrently and keeps the responses in call order', async () => {
    let running = 0
    let overlap = 0
    const releases: Array<() => void> = []
    const wait = defineTool({
      name: 'wait',
      description: '',
      inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
      execute: async ({ n }) => {
        running++
        overlap = Math.max(overlap, running)
        await new Promise<void>((resolve) => releases.push(resolve))
        running--
        return `done ${n}`
      },
    })
    const pending = manager().executeToolCalls(
      prompt([wait]),
      responseWith(call('wait', { n: 1 }), call('wait', { n: 2 })),
    )
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(overlap).toBe(2)
    releases.reverse().forEach((release) => release())
    expect(await responseTexts(pending)).toEqual(['done 1', 'done 2'])
  })

  it('answers an unknown tool with an Error: response naming the available tools', async () => {
    const texts = await responseTexts(manager().executeToolCalls(prompt([echo]), responseWith(call('nope'))))
    expect(texts).toEqual(["Error: unknown tool 'nope'. Available tools: echo."])
  })

  it('answers arguments that are not JSON with an Error: response', async () => {
    const texts = await responseTexts(manager().executeToolCalls(prompt([echo]), responseWith(call('echo', '{oops'))))
    expect(texts[0]).toMatch(/^Error: arguments for tool 'echo' are not valid JSON/)
  })

  it('answers a schema violation with the path and the rule', async () => {
    const texts = await responseTexts(
      manager().executeToolCalls(prompt([echo]), responseWith(call('echo', { value: 1 }))),
    )
    expect(texts).toEqual(["Error: invalid arguments for tool 'echo': /value must be string"])
  })

  it('answers a throwing tool with its error', async () => {
    const broken = defineTool({
      name: 'broken',
      description: '',
      inputSchema: {},
      execute: () => Promise.reject(new Error('disk full')),
    })
    const texts = await responseTexts(manager().executeToolCalls(prompt([broken]), responseWith(call('broken'))))
    expect(texts).toEqual(["Error: tool 'broken' failed: disk full"])
  })

  it.each([
    ['an object without a prototype', () => Object.create(null) as unknown, '{}'],
    ['null', () => null, 'null'],
    ['a string', () => 'plain words', 'plain words'],
    ['a symbol', () => Symbol('odd'), 'Symbol(odd)'],
    ['an Error without a message', () => new TypeError(), 'TypeError'],
    [
      'an Error whose message getter throws',
      () => {
        const error = new Error()
        Object.defineProperty(error, 'message', {
          get() {
            throw new Error('gotcha')
          },
        })
        return error
      },
      'an unreadable error was thrown',
    ],
  ])('answers a tool that throws %s with an Error: response', async (_kind, make, described) => {
    const thrower = defineTool({
      name: 'thrower',
      description: '',
      inputSchema: {},
      execute: () => {
        throw make()
      },
    })
    const texts = await responseTexts(manager().executeToolCalls(prompt([thrower]), responseWith(call('thrower'))))
    expect(texts).toEqual([`Error: tool 'thrower' failed: ${described}`])
  })

  it.each([
    ['a number', 7, '7', false],
    ['an object', { a: [1] }, '{"a":[1]}', false],
    ['undefined', undefined, '', false],
    [
      'a function',
      () => 1,
      "Error: tool 'raw' returned a function, which cannot be sent to the model; return a string or JSON-encodable data",
      true,
    ],
    [
      'a symbol',
      Symbol('s'),
      "Error: tool 'raw' returned a symbol, which cannot be sent to the model; return a string or JSON-encodable data",
      true,
    ],
  ])('turns %s returned by a hand-written ToolCallback into a string', async (_kind, value, text, failed) => {
    const raw: ToolCallback = {
      definition: { name: 'raw', description: '', inputSchema: {} },
      metadata: { returnDirect: true },
      call: () => Promise.resolve(value as unknown as string),
    }
    const result = await manager().executeToolCalls(prompt([raw]), responseWith(call('raw')))
    const last = result.conversationHistory.at(-1)!
    expect(last.role === 'tool' && last.responses[0]!.responseData).toBe(text)
    expect(result.returnDirect).toBe(!failed)
  })

  it('answers a timed-out tool with an Error: response', async () => {
    const slow = defineTool({
      name: 'slow',
      description: '',
      inputSchema: {},
      timeoutMs: 10,
      execute: () => new Promise(() => {}),
    })
    const texts = await responseTexts(manager().executeToolCalls(prompt([slow]), responseWith(call('slow'))))
    expect(texts).toEqual(["Error: tool 'slow' did not finish within 10 ms"])
  })

  it('rejects with an AbortError on abort and aborts the running tools', async () => {
    const controller = new AbortController()
    let toolSignal: AbortSignal | undefined
    const hang = defineTool({
      name: 'hang',
      description: '',
      inputSchema: {},
      execute: (_args, ctx) =>
        new Promise((_, reject) => {
          toolSignal = ctx.signal
          ctx.signal?.addEventListener('abort', () => reject(new Error('stopped')))
        }),
    })
    const pending = manager().executeToolCalls(prompt([hang]), responseWith(call('hang')), {
      signal: controller.signal,
    })
    await new Promise((resolve) => setTimeout(resolve, 5))
    controller.abort()
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
    expect(toolSignal?.aborted).toBe(true)
  })

  it('gives tools the tool context values, the advisor context and the call', async () => {
    let seen: unknown
    const spy = defineTool({ name: 'spy', description: '', inputSchema: {}, execute: (_a, ctx) => void (seen = ctx) })
    const p: Prompt = { messages: [userMessage('go')], options: { tools: [spy], toolContext: { user: 'ann' } } }
    await manager().executeToolCalls(p, responseWith(call('spy', {}, 'c9')), { advisorContext: { run: 1 } })
    expect(seen).toMatchObject({
      values: { user: 'ann' },
      advisorContext: { run: 1 },
      toolCall: { id: 'c9', name: 'spy' },
    })
  })

  it('is returnDirect only when every call ran a returnDirect tool', async () => {
    const direct = defineTool({
      name: 'direct',
      description: '',
      inputSchema: {},
      returnDirect: true,
      execute: () => 'd',
    })
    const all = await manager().executeToolCalls(
      prompt([direct, echo]),
      responseWith(call('direct', {}, 'a'), call('direct', {}, 'b')),
    )
    const some = await manager().executeToolCalls(prompt([direct, echo]), responseWith(call('direct'), call('echo')))
    expect([all.returnDirect, some.returnDirect]).toEqual([true, false])
  })

  it('refuses two tools with the same name', async () => {
    const otherEcho: ToolCallback = { ...echo }
    await expect(manager().executeToolCalls(prompt([echo, otherEcho]), responseWith(call('echo')))).rejects.toThrow(
      /Two tools are named 'echo'/,
    )
  })

  it('takes one tool object given twice as one tool', async () => {
    const result = await manager().executeToolCalls(prompt([echo, echo]), responseWith(call('echo', { text: 'hi' })))
    expect(result.conversationHistory.at(-1)).toMatchObject({ role: 'tool' })
  })
})

describe('ToolCallingManager execution events', () => {
  it("carry the tool's source, and on the end event the last detail the tool reported", async () => {
    const source = { kind: 'mcp', name: 'clock 1.0.0', url: 'http://127.0.0.1:3001/mcp' }
    const remote: ToolCallback = {
      definition: { name: 'now', description: 'Time', inputSchema: { type: 'object' } },
      metadata: { returnDirect: false, source },
      async call(_input, context) {
        context.report?.({ request: { method: 'tools/call' } })
        context.report?.({ request: { method: 'tools/call' }, response: { text: '12:00' } })
        return '12:00'
      },
    }
    const events: unknown[] = []
    await manager().executeToolCalls(prompt([remote, echo]), responseWith(call('now'), call('echo', { value: 'a' })), {
      onToolExecution: (event) => events.push(event),
    })
    // Both start before either runs; the calls end in whatever order they finish (echo answers at once).
    const [startNow, startEcho] = events as Array<Record<string, unknown>>
    const ends = (events as Array<Record<string, unknown>>).filter((event) => event['type'] === 'end')
    const endNow = ends.find((event) => (event['toolCall'] as ToolCall).name === 'now')
    const endEcho = ends.find((event) => (event['toolCall'] as ToolCall).name === 'echo')
    expect(startNow).toMatchObject({ type: 'start', toolCall: call('now'), source })
    expect(startEcho).toMatchObject({ type: 'start', toolCall: call('echo', { value: 'a' }) })
    expect(endNow).toMatchObject({ type: 'end', toolCall: call('now'), source })
    expect(endNow!['detail']).toEqual({ request: { method: 'tools/call' }, response: { text: '12:00' } })
    expect(endEcho).toMatchObject({ type: 'end', toolCall: call('echo', { value: 'a' }) })
    expect(endEcho).not.toHaveProperty('source')
    expect(endEcho).not.toHaveProperty('detail')
  })
})

describe('ToolCallingManager limits', () => {
  const turnWith = (calls: number, name = 'echo'): Message[] => {
    const messages: Message[] = [userMessage('go')]
    for (let i = 0; i < calls; i++) {
      messages.push(assistantMessage('', [call(name, { value: String(i) }, `p${i}`)]))
      messages.push(toolResponseMessage([{ id: `p${i}`, name, responseData: String(i) }]))
    }
    return messages
  }

  it('throws ToolCallLimitExceededError past the per-tool limit with onExceed throw', async () => {
    const limited = ToolCallingManager.builder().limits({ perTool: 2 }).build()
    await expect(
      limited.executeToolCalls(prompt([echo], turnWith(2)), responseWith(call('echo', { value: 'x' }))),
    ).rejects.toThrow(ToolCallLimitExceededError)
  })

  it('answers the calls past the limit with an Error: response with onExceed error-response', async () => {
    const limited = ToolCallingManager.builder().limits({ total: 3, onExceed: 'error-response' }).build()
    const texts = await responseTexts(
      limited.executeToolCalls(
        prompt([echo], turnWith(2)),
        responseWith(call('echo', { value: 'x' }), call('echo', { value: 'y' })),
      ),
    )
    expect(texts[0]).toBe('x')
    expect(texts[1]).toMatch(
      /^Error: tool call limit reached: 4 tool calls were made in this turn \(limit 3 in total\)/,
    )
  })

  it('counts only the current turn, after the last user message', async () => {
    const limited = ToolCallingManager.builder().limits({ perTool: 2 }).build()
    const messages = [...turnWith(2), userMessage('again')]
    const texts = await responseTexts(
      limited.executeToolCalls(prompt([echo], messages), responseWith(call('echo', { value: 'x' }))),
    )
    expect(texts).toEqual(['x'])
  })

  it('refuses the same call with identical arguments after 3 times in a turn', async () => {
    const messages: Message[] = [userMessage('go')]
    for (let i = 0; i < 3; i++) {
      messages.push(assistantMessage('', [call('echo', { value: 'same' }, `s${i}`)]))
      messages.push(toolResponseMessage([{ id: `s${i}`, name: 'echo', responseData: 'same' }]))
    }
    const texts = await responseTexts(
      manager().executeToolCalls(prompt([echo], messages), responseWith(call('echo', '{ "value" : "same" }'))),
    )
    expect(texts[0]).toMatch(/^Error: tool 'echo' was already called 3 times with these same arguments in this turn/)
  })

  it('lets the identical-call guard be configured', async () => {
    const strict = ToolCallingManager.builder().maxIdenticalCalls(1).build()
    const texts = await responseTexts(
      strict.executeToolCalls(
        prompt([echo]),
        responseWith(call('echo', { value: 'a' }, '1'), call('echo', { value: 'a' }, '2')),
      ),
    )
    expect(texts[0]).toBe('a')
    expect(texts[1]).toMatch(/^Error: tool 'echo' was already called 1 time with/)
  })

  it('keeps counting over rounds of one history array that grows by each round (as the tool loop keeps it)', async () => {
    const limited = ToolCallingManager.builder().limits({ perTool: 2, onExceed: 'error-response' }).build()
    const history: Message[] = [userMessage('go')]
    const texts: string[][] = []
    for (let round = 0; round < 3; round++) {
      const result = limited.executeToolCalls(
        prompt([echo], history),
        responseWith(call('echo', { value: `${round}` })),
      )
      texts.push(await responseTexts(result))
      history.push(...(await result).appended!)
    }
    expect(texts.slice(0, 2)).toEqual([['0'], ['1']])
    expect(texts[2]![0]).toMatch(/^Error: tool call limit reached: tool 'echo' was called 3 times/)
  })

  it('counts a round asked again on the same history anew, whatever an earlier attempt counted', async () => {
    const limited = ToolCallingManager.builder().limits({ perTool: 2 }).build()
    const history: Message[] = [userMessage('go')]
    const first = await limited.executeToolCalls(prompt([echo], history), responseWith(call('echo', { value: 'a' })))
    history.push(...first.appended!)
    const twoCalls = responseWith(call('echo', { value: 'b' }), call('echo', { value: 'c' }))
    await expect(limited.executeToolCalls(prompt([echo], history), twoCalls)).rejects.toThrow(
      ToolCallLimitExceededError,
    )
    // The same round again with one call: one earlier call in the history, so it runs.
    const texts = await responseTexts(
      limited.executeToolCalls(prompt([echo], history), responseWith(call('echo', { value: 'b' }))),
    )
    expect(texts).toEqual(['b'])
  })

  it('gives each of two identical calls arguments of its own, which the tool may change', async () => {
    const seen: unknown[] = []
    const tag = defineTool({
      name: 'tag',
      description: 'Tag',
      inputSchema: { type: 'object', properties: { list: { type: 'array', items: { type: 'string' } } } },
      execute: (args: { list?: string[] }) => {
        seen.push(args)
        args.list?.push('mine')
        return args.list?.join(',') ?? ''
      },
    })
    const texts = await responseTexts(
      manager().executeToolCalls(
        prompt([tag]),
        responseWith(call('tag', { list: ['a'] }, 'c1'), call('tag', { list: ['a'] }, 'c2')),
      ),
    )
    expect(texts).toEqual(['a,mine', 'a,mine'])
    expect(seen[0]).not.toBe(seen[1])
  })

  it("runs a defineTool tool's replaced call, with the arguments as text", async () => {
    const wrapped = defineTool({ ...echoSpec(), name: 'wrapped' })
    const inputs: string[] = []
    const original = wrapped.call.bind(wrapped)
    wrapped.call = (input, context) => {
      inputs.push(input)
      return original(input, context)
    }
    const texts = await responseTexts(
      manager().executeToolCalls(prompt([wrapped]), responseWith(call('wrapped', { value: 'x' }))),
    )
    expect(texts).toEqual(['x'])
    expect(inputs).toEqual(['{"value":"x"}'])
  })
})

function echoSpec() {
  return {
    name: 'echo',
    description: 'Echo',
    inputSchema: { type: 'object', properties: { value: { type: 'string' } } } as const,
    execute: ({ value }: { value?: string }) => value ?? '',
  }
}
