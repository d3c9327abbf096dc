import { describe, expect, it } from 'vitest'
import {
  appendToLastUserMessage,
  assistantMessage,
  isMessage,
  toolResponseMessage,
  userMessage,
  type AssistantMessage,
} from './messages'
import { assistantMessageOf, attachmentsOf, isPlainOrder, partsOf, userMessageOf } from './message-parts'
import { byteSizeOf, filePart, imagePart, mediaTypeOf } from './parts'

const PNG = 'data:image/png;base64,iVBORw0KGgo='

describe('message parts', () => {
  it('gives a plain message its plain parts: reasoning, text, tool calls', () => {
    const message: AssistantMessage = {
      ...assistantMessage('Checking.', [{ id: 'c1', name: 'weather', arguments: '{}' }]),
      reasoning: 'Need the weather.',
    }
    expect(partsOf(message)).toEqual([
      { type: 'reasoning', text: 'Need the weather.' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool-call', id: 'c1', name: 'weather', arguments: '{}' },
    ])
    expect(partsOf(userMessage('hi'))).toEqual([{ type: 'text', text: 'hi' }])
    expect(partsOf(toolResponseMessage([{ id: 'c1', name: 'weather', responseData: 'sunny' }]))).toEqual([
      { type: 'tool-result', id: 'c1', name: 'weather', responseData: 'sunny' },
    ])
  })

  it('keeps parts only when the order says more than the plain fields', () => {
    const plain = assistantMessageOf([
      { type: 'text', text: 'Checking.' },
      { type: 'tool-call', id: 'c1', name: 'weather', arguments: '{}' },
    ])
    expect(plain).toEqual(assistantMessage('Checking.', [{ id: 'c1', name: 'weather', arguments: '{}' }]))
    const interleaved = assistantMessageOf([
      { type: 'text', text: 'First Oslo. ' },
      { type: 'tool-call', id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' },
      { type: 'text', text: 'Then Rome.' },
      { type: 'tool-call', id: 'c2', name: 'weather', arguments: '{"city":"Rome"}' },
    ])
    expect(interleaved.text).toBe('First Oslo. Then Rome.')
    expect(interleaved.toolCalls.map((call) => call.id)).toEqual(['c1', 'c2'])
    expect(interleaved.parts?.map((part) => part.type)).toEqual(['text', 'tool-call', 'text', 'tool-call'])
    expect(
      isPlainOrder([
        { type: 'text', text: 'a' },
        { type: 'reasoning', text: 'b' },
      ]),
    ).toBe(false)
  })

  it('follows an advisor that changed only the text: appended words join the last text part', () => {
    const message = userMessageOf([{ type: 'text', text: 'Describe it.' }, imagePart(PNG)])
    const [changed] = appendToLastUserMessage([message], 'Answer in JSON.')
    expect(partsOf(changed!)).toEqual([
      { type: 'text', text: 'Describe it.' },
      { type: 'text', text: '\nAnswer in JSON.' },
      { type: 'image', image: PNG },
    ])
  })

  it('follows an approval that edited a call and drops a call that is gone', () => {
    const message = assistantMessageOf([
      { type: 'tool-call', id: 'c1', name: 'pay', arguments: '{"amount":500}' },
      { type: 'text', text: 'and' },
      { type: 'tool-call', id: 'c2', name: 'pay', arguments: '{"amount":5}' },
    ])
    const edited = { ...message, toolCalls: [{ id: 'c1', name: 'pay', arguments: '{"amount":50}' }] }
    expect(partsOf(edited)).toEqual([
      { type: 'tool-call', id: 'c1', name: 'pay', arguments: '{"amount":50}' },
      { type: 'text', text: 'and' },
    ])
  })

  it('replaces stale text parts with the current text where the first one was', () => {
    const message = assistantMessageOf([
      { type: 'tool-call', id: 'c1', name: 'a', arguments: '{}' },
      { type: 'text', text: 'old' },
    ])
    expect(partsOf({ ...message, text: 'new' })).toEqual([
      { type: 'tool-call', id: 'c1', name: 'a', arguments: '{}' },
      { type: 'text', text: 'new' },
    ])
  })

  it('reads media types and sizes from Blobs and data URLs', () => {
    const blob = new Blob([new Uint8Array(1000)], { type: 'image/webp' })
    expect(mediaTypeOf(imagePart(blob))).toBe('image/webp')
    expect(byteSizeOf(imagePart(blob))).toBe(1000)
    expect(mediaTypeOf(imagePart(PNG))).toBe('image/png')
    expect(byteSizeOf(imagePart(PNG))).toBe(8)
    expect(byteSizeOf(imagePart('https://example.com/cat.png'))).toBeUndefined()
    expect(filePart(new File(['x'], 'notes.txt', { type: 'text/plain' })).name).toBe('notes.txt')
  })

  it('lists attachments and accepts parts (Blobs included) as stored messages', () => {
    const blob = new Blob(['%PDF-1.7'], { type: 'application/pdf' })
    const message = userMessageOf([{ type: 'text', text: 'Summarise' }, filePart(blob, { name: 'a.pdf' })])
    expect(attachmentsOf(message)).toEqual([{ type: 'file', data: blob, name: 'a.pdf' }])
    expect(isMessage(message)).toBe(true)
    expect(isMessage({ role: 'user', text: '', parts: [{ type: 'image', image: 7 }] })).toBe(false)
    expect(
      isMessage({ role: 'user', text: '', parts: [{ type: 'tool-call', id: 'a', name: 'b', arguments: '' }] }),
    ).toBe(false)
    expect(isMessage({ ...assistantMessage('a'), parts: [{ type: 'reasoning', text: 'b' }] })).toBe(true)
  })
})
