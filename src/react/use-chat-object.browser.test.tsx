import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ChatClient } from '../client'
import { ScriptedChatModel, type ScriptStep } from '../models'
import { OutputParseError } from '../schema'
import { defineTool } from '../tools'
import { mount, unmountAll } from './testing/chat-probe'

afterEach(() => unmountAll())

const trip = z.object({ city: z.string(), days: z.array(z.object({ title: z.string() })) })
const ANSWER = JSON.stringify({ city: 'Lisbon', days: [{ title: 'Alfama' }, { title: 'Belém' }] })
const slowly = (text: string): ScriptStep => ({ text, chunks: text.match(/[^]{1,3}/g)!, delayMs: 5 })
const objects = (renders: Array<{ object: unknown }>) =>
  renders.map((render) => render.object).filter((object, i, all) => object !== all[i - 1])

describe('useChat with output', () => {
  it('shows the structured answer filling in, then the validated value', async () => {
    const { probe, chat } = await mount(ChatClient.create(new ScriptedChatModel([slowly(ANSWER)])), { output: trip })
    await chat().send('Plan Lisbon')
    await expect.poll(() => chat().status).toBe('idle')
    const shown = objects(probe.renders)
    expect(shown).toContainEqual({ city: 'Lisbon', days: [{ title: 'Alfama' }] })
    expect(shown).not.toContainEqual({ city: 'Lis' })
    expect(chat().object).toEqual(JSON.parse(ANSWER))
  })

  it('starts over after a tool round and on a validation retry', async () => {
    const lookup = defineTool({
      name: 'lookup',
      description: 'd',
      inputSchema: { type: 'object' },
      execute: () => 'ok',
    })
    const model = new ScriptedChatModel([
      { text: '{"city": "Porto"', toolCalls: [{ name: 'lookup' }] },
      slowly('{"city": 1, "days": []}'),
      slowly(ANSWER),
    ])
    const client = ChatClient.builder(model).defaultTools(lookup).build()
    const { probe, chat } = await mount(client, { output: trip, validate: true })
    await chat().send('Plan Lisbon')
    await expect.poll(() => chat().status).toBe('idle')
    expect(model.prompts).toHaveLength(3)
    expect(chat().object).toEqual(JSON.parse(ANSWER))
    expect(objects(probe.renders)).toContain(undefined)
  })

  it('ends the turn with an OutputParseError when the answer is not the structure', async () => {
    const { chat } = await mount(ChatClient.create(new ScriptedChatModel(['Sorry, no JSON today.'])), { output: trip })
    await chat().send('Plan Lisbon')
    await expect.poll(() => chat().status).toBe('error')
    expect(chat().error).toBeInstanceOf(OutputParseError)
  })
})
