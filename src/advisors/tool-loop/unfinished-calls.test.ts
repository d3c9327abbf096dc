import { describe, expect, it } from 'vitest'
import { ChatClient } from '../../client'
import { collect } from '../../core/testing/collect'
import { ScriptedChatModel } from '../../models'
import { defineTool, ToolCallError } from '../../tools'

// Whatever the model (a custom one, WebLLM, a test double), a round whose finish reason says the
// answer was cut short holds unfinished tool calls: the loop runs none of them.

function setup(finishReason: string, maxTokens?: number) {
  const wiped: unknown[] = []
  const wipe = defineTool({
    name: 'wipe',
    description: 'Deletes every note',
    inputSchema: { type: 'object' } as const,
    execute: (input) => (wiped.push(input), 'every note deleted'),
  })
  const model = new ScriptedChatModel([
    { toolCalls: [{ id: 'w1', name: 'wipe', arguments: '' }], finishReason },
    'done',
  ])
  const client = ChatClient.builder(model)
    .defaultTools(wipe)
    .defaultOptions(maxTokens ? { maxTokens } : {})
    .build()
  return { wiped, model, spec: client.prompt('Tidy up') }
}

async function failure(answer: Promise<unknown>): Promise<ToolCallError> {
  const error = await answer.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(ToolCallError)
  return error as ToolCallError
}

describe('the tool loop runs no call of an answer cut short', () => {
  for (const mode of ['call', 'stream'] as const) {
    const answer = (spec: ReturnType<typeof setup>['spec']) =>
      mode === 'call' ? spec.call().content() : collect(spec.stream().content())

    it(`${mode}: a round cut at the token limit fails with advice to raise maxTokens`, async () => {
      const { wiped, model, spec } = setup('length', 256)
      const error = await failure(answer(spec))
      expect(error.message).toBe(
        "The answer was cut short (finish reason 'length') in the middle of its tool calls, so none was run. Raise maxTokens so the calls fit.",
      )
      expect(wiped).toEqual([])
      expect(model.prompts).toHaveLength(1)
    })

    it(`${mode}: a round cut by a content filter fails without running its call`, async () => {
      const { wiped, spec } = setup('content_filter')
      expect((await failure(answer(spec))).message).toMatch(/finish reason 'content_filter'.*Try again\.$/)
      expect(wiped).toEqual([])
    })

    it(`${mode}: a round whose calls are finished runs them (blank arguments mean {})`, async () => {
      const { wiped, spec } = setup('tool_calls')
      await answer(spec)
      expect(wiped).toEqual([{}])
    })
  }
})
