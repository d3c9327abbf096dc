import { describe, expect, it } from 'vitest'
import { ChatClient } from '../client'
import { ScriptedChatModel } from '../models'
import { ToolCallingManager, defineTool } from '../tools'
import { MessageWindowChatMemory, InMemoryChatMemoryRepository } from '../memory'
import { EvaluationAdvisor } from './evaluation'
import { LoopBudgetAdvisor } from './loop-budget'
import { RetryAdvisor } from './retry'
import { StructuredOutputValidationAdvisor } from './structured-output'
import { ToolCallingAdvisor } from './tool-loop/tool-calling'
import { ToolSearchToolCallingAdvisor } from './tool-loop/tool-search'

const schema = { type: 'object', properties: { a: { type: 'number' } } } as const
const judge = () => ({ score: 1 })

describe('numeric options are checked at construction', () => {
  it.each([Infinity, 1.5, NaN])('refuses maxRepeatAttempts %s on the structured-output advisor', (attempts) => {
    const build = () =>
      StructuredOutputValidationAdvisor.builder().outputSchema(schema).maxRepeatAttempts(attempts).build()
    expect(build).toThrow(RangeError)
    expect(build).toThrow(
      Number.isNaN(attempts)
        ? 'repeatAttempts must be greater than or equal to 0'
        : `maxRepeatAttempts must be a whole number of at least 0, got ${attempts}`,
    )
  })

  it('keeps the contract text for negative repeat attempts', () => {
    expect(() =>
      StructuredOutputValidationAdvisor.builder().outputSchema(schema).maxRepeatAttempts(-1).build(),
    ).toThrow('repeatAttempts must be greater than or equal to 0')
  })

  it('refuses maxRepeatAttempts Infinity given to entity() with the same RangeError', async () => {
    const client = ChatClient.create(new ScriptedChatModel(['{"a":1}']))
    await expect(
      client.prompt('q').call().entity(schema, { validate: true, maxRepeatAttempts: Infinity }),
    ).rejects.toThrow('maxRepeatAttempts must be a whole number of at least 0, got Infinity')
  })

  it.each([
    [
      'maxAttempts',
      () => EvaluationAdvisor.builder().judge(judge).maxAttempts(Infinity).build(),
      'maxAttempts must be a whole number of at least 1, got Infinity',
    ],
    [
      'maxAttempts 0',
      () => EvaluationAdvisor.builder().judge(judge).maxAttempts(0).build(),
      'maxAttempts must be a whole number of at least 1, got 0',
    ],
    [
      'threshold',
      () => EvaluationAdvisor.builder().judge(judge).threshold(NaN).build(),
      'threshold must be a finite number between 0 and 1, got NaN',
    ],
    [
      'threshold above 1',
      () => EvaluationAdvisor.builder().judge(judge).threshold(2).build(),
      'threshold must be a finite number between 0 and 1, got 2',
    ],
  ])('refuses an EvaluationAdvisor %s out of range', (_label, build, message) => {
    expect(build).toThrow(RangeError)
    expect(build).toThrow(message)
  })

  it.each([
    [
      'maxAttempts',
      () => RetryAdvisor.builder().maxAttempts(Infinity).build(),
      'maxAttempts must be a whole number of at least 1, got Infinity',
    ],
    [
      'initialDelayMs',
      () => RetryAdvisor.builder().initialDelayMs(-1).build(),
      'initialDelayMs must be a finite number at least 0, got -1',
    ],
    [
      'multiplier',
      () => RetryAdvisor.builder().multiplier(Infinity).build(),
      'multiplier must be a finite number at least 1, got Infinity',
    ],
    [
      'maxDelayMs',
      () => RetryAdvisor.builder().maxDelayMs(NaN).build(),
      'maxDelayMs must be a finite number at least 0, got NaN',
    ],
    [
      'maxTotalDelayMs',
      () => RetryAdvisor.builder().maxTotalDelayMs(Infinity).build(),
      'maxTotalDelayMs must be a finite number at least 0, got Infinity',
    ],
    [
      'jitter',
      () => RetryAdvisor.builder().jitter(NaN).build(),
      'jitter must be a finite number between 0 and 1, got NaN',
    ],
  ])('refuses a RetryAdvisor %s out of range', (_label, build, message) => {
    expect(build).toThrow(RangeError)
    expect(build).toThrow(message)
  })

  it.each([
    [
      'maxRounds',
      () => LoopBudgetAdvisor.builder().maxRounds(Infinity).build(),
      'maxRounds must be a whole number of at least 1, got Infinity',
    ],
    [
      'maxTotalTokens',
      () => LoopBudgetAdvisor.builder().maxTotalTokens(2.5).build(),
      'maxTotalTokens must be a whole number of at least 1, got 2.5',
    ],
    [
      'maxDurationMs',
      () => LoopBudgetAdvisor.builder().maxDurationMs(Infinity).build(),
      'maxDurationMs must be a finite number at least 0, got Infinity',
    ],
  ])('refuses a LoopBudgetAdvisor %s out of range', (_label, build, message) => {
    expect(build).toThrow(RangeError)
    expect(build).toThrow(message)
  })

  it.each([
    [
      'perTool',
      () => ToolCallingManager.builder().limits({ perTool: Infinity }),
      'perTool must be a whole number of at least 1, got Infinity',
    ],
    [
      'total',
      () => ToolCallingManager.builder().limits({ total: 0 }),
      'total must be a whole number of at least 1, got 0',
    ],
    [
      'onExceed',
      () => ToolCallingManager.builder().limits({ onExceed: 'ignore' as 'throw' }),
      "onExceed must be 'throw' or 'error-response', got ignore",
    ],
    [
      'maxIdenticalCalls',
      () => ToolCallingManager.builder().maxIdenticalCalls(Infinity),
      'maxIdenticalCalls must be a whole number of at least 1, got Infinity',
    ],
    [
      'maxIterations',
      () => ToolCallingAdvisor.builder().maxIterations(Infinity).build(),
      'maxIterations must be a whole number of at least 1, got Infinity',
    ],
    [
      'maxResults',
      () => ToolSearchToolCallingAdvisor.builder().maxResults(Infinity).build(),
      'maxResults must be a whole number of at least 1, got Infinity',
    ],
    [
      'maxMessages',
      () =>
        MessageWindowChatMemory.builder()
          .chatMemoryRepository(new InMemoryChatMemoryRepository())
          .maxMessages(Infinity)
          .build(),
      'maxMessages must be a whole number of at least 1, got Infinity',
    ],
  ])('refuses a tool-loop or memory %s out of range', (_label, build, message) => {
    expect(build).toThrow(RangeError)
    expect(build).toThrow(message)
  })

  it('refuses a tool timeoutMs that setTimeout cannot hold', () => {
    expect(() =>
      defineTool({ name: 't', description: '', inputSchema: {}, timeoutMs: Infinity, execute: () => 0 }),
    ).toThrow("timeoutMs of tool 't' must be a positive number of milliseconds")
  })
})

describe('an advisor ordered past LOWEST_PRECEDENCE', () => {
  it.each([Number.MAX_SAFE_INTEGER, Infinity])(
    'still runs in a ChatClient call and stream (order %s)',
    async (order) => {
      const seen: string[] = []
      const late = {
        name: 'late',
        order,
        adviseCall: (
          request: Parameters<ToolCallingAdvisor['adviseCall']>[0],
          chain: Parameters<ToolCallingAdvisor['adviseCall']>[1],
        ) => {
          seen.push('call')
          return chain.nextCall(request)
        },
        adviseStream: (
          request: Parameters<ToolCallingAdvisor['adviseStream']>[0],
          chain: Parameters<ToolCallingAdvisor['adviseStream']>[1],
        ) => {
          seen.push('stream')
          return chain.nextStream(request)
        },
      }
      const client = ChatClient.builder(new ScriptedChatModel(['one', 'two']))
        .defaultAdvisors(late)
        .build()
      expect(await client.prompt('q').call().content()).toBe('one')
      const streamed: string[] = []
      for await (const text of client.prompt('q').stream().content()) streamed.push(text)
      expect(streamed.join('')).toBe('two')
      expect(seen).toEqual(['call', 'stream'])
    },
  )
})
