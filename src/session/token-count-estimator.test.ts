import { describe, expect, it } from 'vitest'
import { userMessage } from '../core'
import { CharacterTokenCountEstimator } from './token-count-estimator'

describe('CharacterTokenCountEstimator', () => {
  it('counts about four characters of English a token and one CJK character a token', () => {
    const estimator = new CharacterTokenCountEstimator()
    expect(estimator.estimate([userMessage('a'.repeat(400))])).toBe(104)
    expect(estimator.estimate([userMessage('会話の要約を書いてください'.repeat(10))])).toBe(134)
  })

  it('follows the counts a model reports', () => {
    const estimator = new CharacterTokenCountEstimator()
    const messages = [userMessage('a'.repeat(400))]
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
