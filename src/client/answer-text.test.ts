import { describe, expect, it } from 'vitest'
import { AnswerText } from './answer-text'

function read(text: AnswerText): string {
  let got = ''
  text.read((piece) => (got += piece))
  return got
}

describe('AnswerText', () => {
  it('hands on every character once, in order, however reads and chunks interleave', () => {
    const chunks = Array.from({ length: 5000 }, (_, i) => `${i % 10}${'ab'.slice(0, i % 3)}`)
    for (const every of [1, 7, 1023, 1024, 1025, 4999, Infinity]) {
      const text = new AnswerText()
      let got = ''
      chunks.forEach((chunk, i) => {
        text.add(chunk)
        if ((i + 1) % every === 0) got += read(text)
      })
      got += read(text)
      expect(got).toBe(chunks.join(''))
      expect(text.toString()).toBe(chunks.join(''))
      expect(text.length).toBe(chunks.join('').length)
    }
  })

  it('has started once something was handed on', () => {
    const text = new AnswerText()
    text.add('{')
    expect(text.started).toBe(false)
    read(text)
    expect(text.started).toBe(true)
  })
})
