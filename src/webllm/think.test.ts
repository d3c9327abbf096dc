import { describe, expect, it } from 'vitest'
import { splitThinking, ThinkSplitter, type Split } from './think'

const QWEN3 = '<think>\nThe user greets me.\n\nI reply kindly.\n</think>\n\nHello! How can I help?'

function streamed(deltas: string[]): Split {
  const splitter = new ThinkSplitter()
  const parts = [...deltas.map((delta) => splitter.push(delta)), splitter.flush()]
  return { text: parts.map((part) => part.text).join(''), reasoning: parts.map((part) => part.reasoning).join('') }
}

describe('ThinkSplitter', () => {
  it('splits a Qwen3 reply into reasoning and answer text', () => {
    expect(splitThinking(QWEN3)).toEqual({
      text: 'Hello! How can I help?',
      reasoning: 'The user greets me.\n\nI reply kindly.',
    })
  })

  it('gives the same split for every way of cutting the reply into deltas', () => {
    for (let size = 1; size <= QWEN3.length; size++) {
      const deltas = Array.from({ length: Math.ceil(QWEN3.length / size) }, (_, i) =>
        QWEN3.slice(i * size, (i + 1) * size),
      )
      expect(streamed(deltas)).toEqual(splitThinking(QWEN3))
    }
  })

  it('gives no reasoning for the empty block Qwen3 writes with thinking off', () => {
    expect(splitThinking('<think>\n\n</think>\n\nPlain answer.')).toEqual({ text: 'Plain answer.', reasoning: '' })
  })

  it('passes a reply without a block through untouched, even one that mentions <think> later', () => {
    expect(splitThinking('Use <think> tags like this.')).toEqual({ text: 'Use <think> tags like this.', reasoning: '' })
    expect(streamed(['<', 'b>bold</b>'])).toEqual({ text: '<b>bold</b>', reasoning: '' })
  })

  it('keeps an unclosed block (a reply cut off while thinking) as reasoning', () => {
    expect(streamed(['<think>still thin', 'king</th'])).toEqual({ text: '', reasoning: 'still thinking</th' })
  })
})
