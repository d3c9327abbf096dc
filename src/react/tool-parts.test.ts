import { describe, expectTypeOf, it } from 'vitest'
import { defineTool } from '../tools'
import type { ChatFinish, ChatMessageView, ToolCallPartView, ToolParts } from '../client'
import type { UseChat, UseChatOptions } from './use-chat'

// Types only: tool parts are typed by the tools of defineTool (checked by tsc with the rest of the code).

const weather = defineTool({
  name: 'weather',
  description: 'Weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } as const,
  execute: ({ city }) => `sunny in ${city}`,
})
const addNote = defineTool({
  name: 'add_note',
  description: 'Adds a note',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string' }, pinned: { type: 'boolean' } },
    required: ['text'],
  } as const,
  execute: () => 'ok',
})
export const tools = [weather, addNote]
type Tools = (typeof tools)[number]

describe('tool parts typed by defineTool', () => {
  it('names each tool, and types its input by its schema', () => {
    type Part = ToolParts<Tools>
    expectTypeOf<Part['name']>().toEqualTypeOf<'weather' | 'add_note'>()
    const part = {} as Part
    if (part.name === 'weather') expectTypeOf(part.input).toEqualTypeOf<{ city: string } | undefined>()
    else expectTypeOf(part.input).toEqualTypeOf<{ text: string; pinned?: boolean } | undefined>()
  })

  it('types the hook: messages, onToolCall and onFinish', () => {
    type Chat = UseChat<Tools>
    type Part = Chat['messages'][number]['parts'][number]
    expectTypeOf<Extract<Part, { type: 'tool-call' }>>().toEqualTypeOf<ToolParts<Tools>>()
    expectTypeOf<Parameters<NonNullable<UseChatOptions<Tools>['onToolCall']>>[0]>().toEqualTypeOf<ToolParts<Tools>>()
    expectTypeOf<ChatFinish<Tools>['message']>().toEqualTypeOf<ChatMessageView<Tools>>()
  })

  it('without tools, a part is any tool call', () => {
    expectTypeOf<Extract<ChatMessageView['parts'][number], { type: 'tool-call' }>>().toEqualTypeOf<ToolCallPartView>()
    expectTypeOf<ToolCallPartView['input']>().toEqualTypeOf<unknown>()
  })
})
