import { describe, expect, it } from 'vitest'
import { userMessage } from '../core'
import { CharacterTokenCountEstimator } from './token-count-estimator'

describe('CharacterTokenCountEstimator', () => {
  it('counts per script: English, ASCII punctuation and digits, Han, kana and hangul, and five a message', () => {
    const estimator = new CharacterTokenCountEstimator()
    expect(estimator.estimate([userMessage('a'.repeat(450))])).toBe(5 + 100)
    expect(estimator.estimate([userMessage('{"n":1}'.repeat(20))])).toBe(5 + Math.ceil(20 / 4.5 + 120 / 2))
    // 会話の要約を書いてください: five Han characters and eight kana.
    expect(estimator.estimate([userMessage('会話の要約を書いてください'.repeat(10))])).toBe(5 + 48 + 64)
    expect(estimator.estimate([userMessage('안녕하세요'.repeat(10))])).toBe(5 + 40)
  })

  it('follows the counts a model reports', () => {
    const estimator = new CharacterTokenCountEstimator()
    const messages = [userMessage('a'.repeat(450))]
    for (let i = 0; i < 8; i++) estimator.observe(estimator.estimate(messages), 156)
    expect(Math.abs(estimator.estimate(messages) - 156)).toBeLessThanOrEqual(2)
  })

  it('ignores a report that is not a count', () => {
    const estimator = new CharacterTokenCountEstimator()
    estimator.observe(100, Number.NaN)
    estimator.observe(0, 50)
    expect(estimator.correction).toBe(1)
  })
})
