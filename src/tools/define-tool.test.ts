import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { defineTool } from './define-tool'
import type { ToolContext } from '../core'

const context = (signal?: AbortSignal): ToolContext => ({
  values: {},
  advisorContext: {},
  toolCall: { id: 'c1', name: 'echo', arguments: '{}' },
  ...(signal ? { signal } : {}),
})

const echo = defineTool({
  name: 'echo',
  description: 'Echoes a value',
  inputSchema: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] } as const,
  execute: ({ value }) => `echo: ${value}`,
})

describe('defineTool', () => {
  it('exposes its definition and returnDirect metadata', () => {
    const tool = defineTool({
      name: 'now',
      description: 'Time',
      inputSchema: { type: 'object' },
      execute: () => 1,
      returnDirect: true,
    })
    expect(tool.definition).toEqual({ name: 'now', description: 'Time', inputSchema: { type: 'object' } })
    expect(tool.metadata.returnDirect).toBe(true)
  })

  it('passes the parsed, validated arguments to execute', async () => {
    expect(await echo.call('{"value":"hi"}', context())).toBe('echo: hi')
  })

  it('treats blank arguments as an empty object', async () => {
    const tool = defineTool({
      name: 'now',
      description: 'Time',
      inputSchema: { type: 'object' },
      execute: (args) => args,
    })
    expect(await tool.call('  ', context())).toBe('{}')
  })

  it('rejects arguments that are not JSON, saying so', async () => {
    await expect(echo.call('{value: hi}', context())).rejects.toThrow(/arguments for tool 'echo' are not valid JSON/)
  })

  it('names each offending argument by path and rule for a JSON Schema', async () => {
    await expect(echo.call('{"value": 3}', context())).rejects.toThrow(
      "invalid arguments for tool 'echo': /value must be string",
    )
  })

  it('reports a missing required argument', async () => {
    await expect(echo.call('{}', context())).rejects.toThrow(
      "invalid arguments for tool 'echo': / must have required property 'value'",
    )
  })

  it('validates with a Standard Schema and sends its JSON Schema to the model', async () => {
    const add = defineTool({
      name: 'add',
      description: 'Adds',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => a + b,
    })
    expect(add.definition.inputSchema).toMatchObject({ type: 'object', required: ['a', 'b'] })
    expect(await add.call('{"a":1,"b":2}', context())).toBe('3')
    await expect(add.call('{"a":"1","b":2}', context())).rejects.toThrow(
      /invalid arguments for tool 'add': \/a .*expected number/,
    )
  })

  it('answers with the error of a tool that throws', async () => {
    const broken = defineTool({
      name: 'broken',
      description: '',
      inputSchema: { type: 'object' },
      execute: () => {
        throw new Error('disk full')
      },
    })
    await expect(broken.call('{}', context())).rejects.toThrow('disk full')
  })

  it('fails a tool that passes timeoutMs and aborts its signal', async () => {
    let seen: AbortSignal | undefined
    const slow = defineTool({
      name: 'slow',
      description: '',
      inputSchema: { type: 'object' },
      timeoutMs: 20,
      execute: (_args, ctx) => {
        seen = ctx.signal
        return new Promise(() => {})
      },
    })
    await expect(slow.call('{}', context())).rejects.toThrow("tool 'slow' did not finish within 20 ms")
    expect(seen?.aborted).toBe(true)
  })

  it('clears its timeout timer when the run aborts, even if the tool ignores its signal', async () => {
    vi.useFakeTimers()
    try {
      const deaf = defineTool({
        name: 'deaf',
        description: '',
        inputSchema: { type: 'object' },
        timeoutMs: 60_000,
        execute: () => new Promise(() => {}),
      })
      const controller = new AbortController()
      const pending = deaf.call('{}', context(controller.signal))
      await vi.advanceTimersByTimeAsync(0)
      expect(vi.getTimerCount()).toBe(1)
      controller.abort()
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
      expect(vi.getTimerCount()).toBe(0)
    } finally {
      vi.useRealTimers()
    }
  })

  it('rejects at once with an AbortError when the signal is already aborted', async () => {
    const timed = defineTool({ name: 't', description: '', inputSchema: {}, timeoutMs: 50, execute: () => 'ran' })
    const controller = new AbortController()
    controller.abort()
    await expect(timed.call('{}', context(controller.signal))).rejects.toMatchObject({ name: 'AbortError' })
  })

  it('turns a returned function into a clear error instead of an undefined result', async () => {
    const weird = defineTool({ name: 'weird', description: '', inputSchema: {}, execute: () => () => 1 })
    await expect(weird.call('{}', context())).rejects.toThrow(
      "tool 'weird' returned a function, which cannot be sent to the model; return a string or JSON-encodable data",
    )
  })

  it('refuses a tool name that model APIs would reject', () => {
    expect(() => defineTool({ name: 'has space', description: '', inputSchema: {}, execute: () => 0 })).toThrow(
      /Tool name 'has space'/,
    )
  })

  it('refuses a schema that is neither JSON Schema nor Standard Schema', () => {
    expect(() => defineTool({ name: 'x', description: '', inputSchema: 'string' as never, execute: () => 0 })).toThrow(
      /must be a JSON Schema object or a Standard Schema/,
    )
  })
})
